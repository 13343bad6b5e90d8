#!/usr/bin/python3
"""Fill a Qt Linguist .ts file from JSON lists of {context, source, translation} (the format the
translation chunks were written in) and print what is still unfinished. Usage:
    merge.py attnlab_zh_CN.ts chunk.json [chunk.json ...]      fill, then report
    merge.py attnlab_zh_CN.ts --export out.json                write the unfinished entries"""
import json
import sys
import xml.etree.ElementTree as ET


def messages(tree):
    for ctx in tree.getroot().findall("context"):
        name = ctx.find("name").text
        for m in ctx.findall("message"):
            yield name, m


def fill(m, text):
    tr = m.find("translation")
    tr.attrib.pop("type", None)
    if m.get("numerus") == "yes":
        for child in list(tr):
            tr.remove(child)
        ET.SubElement(tr, "numerusform").text = text
    else:
        tr.text = text


def main():
    ts = sys.argv[1]
    tree = ET.parse(ts)
    if sys.argv[2] == "--export":
        todo = [{"context": c, "source": m.find("source").text,
                 "comment": m.find("comment").text if m.find("comment") is not None else None,
                 "numerus": m.get("numerus") == "yes"}
                for c, m in messages(tree) if m.find("translation").get("type") == "unfinished"]
        json.dump(todo, open(sys.argv[3], "w"), ensure_ascii=False, indent=1)
        print(f"{len(todo)} unfinished entries written to {sys.argv[3]}")
        return
    table = {}
    for path in sys.argv[2:]:
        for e in json.load(open(path)):
            table[(e["context"], e["source"])] = e["translation"]
    used = 0
    for c, m in messages(tree):
        key = (c, m.find("source").text)
        if key in table:
            fill(m, table[key])
            used += 1
    tree.write(ts, encoding="utf-8", xml_declaration=True)
    left = sum(1 for _, m in messages(tree) if m.find("translation").get("type") == "unfinished")
    print(f"filled {used}; {left} still unfinished")


if __name__ == "__main__":
    main()
