// Pretrained models' tokenizers (core/subword): GPT-2's byte-level BPE and BERT's WordPiece
// against the independent Python reference (tests/golden/gen_subword_golden.py, data_subword/),
// hand-checked cases of the pre-tokenisation pattern, the byte symbols and the chips' display,
// and the tokenizer files' refusals.
#include <QtTest>

#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "io/files.h"
#include "subword/bpe.h"
#include "subword/wordpiece.h"
#include "text/errors.h"

using namespace attnlab;
using namespace attnlab::subword;
using json = nlohmann::json;

namespace {

const std::string kData = std::string(ATTNLAB_TEST_DATA) + "/golden/data_subword/";

std::vector<std::string> strings(const json& j) {
  std::vector<std::string> out;
  for (const auto& s : j) out.push_back(s.get<std::string>());
  return out;
}

ByteLevelBpe golden_bpe() { return ByteLevelBpe::load(kData + "gpt2/vocab.json", kData + "gpt2/merges.txt"); }

// The message of the DataError `f` throws, or "" when it throws none.
template <typename F>
QString refusal(F f) {
  try {
    f();
  } catch (const DataError& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}

}  // namespace

class TestSubword : public QObject {
  Q_OBJECT
 private slots:
  void goldenCasesMatchThePythonReference() {
    std::ifstream f(kData + "cases.json");
    QVERIFY2(f, "tests/golden/data_subword/cases.json: run gen_subword_golden.py");
    const json cases = json::parse(f);
    const ByteLevelBpe bpe = golden_bpe();
    QCOMPARE(bpe.size(), int64_t{417});
    QCOMPARE(bpe.merge_count(), int64_t{160});
    const WordPiece uncased = WordPiece::load(kData + "bert/vocab.txt", true);
    const WordPiece cased = WordPiece::load(kData + "bert/vocab.txt", false);
    int n = 0;
    for (const auto& c : cases) {
      const std::string text = c.at("text").get<std::string>();
      const bool gpt2 = c.at("tokenizer") == "gpt2";
      if (gpt2 && text.find("<|endoftext|>") == std::string::npos)
        QCOMPARE(gpt2_pretokenize(text), strings(c.at("pretokens")));
      const auto tokens = gpt2 ? bpe.encode(text) : (c.at("lower_case").get<bool>() ? uncased : cased).encode(text);
      std::vector<std::string> pieces;
      std::vector<int> ids;
      for (const auto& t : tokens) pieces.push_back(t.piece), ids.push_back(t.id);
      QVERIFY2(pieces == strings(c.at("pieces")), text.c_str());
      QVERIFY2(ids == c.at("ids").get<std::vector<int>>(), text.c_str());
      if (gpt2) QCOMPARE(bpe.decode(ids), text);  // every byte comes back
      ++n;
    }
    QCOMPARE(n, 43);
  }

  // GPT-2's pattern by hand: contractions only lower-case and only at a token's start, a space
  // joins the word after it, a run of spaces leaves its last one to the next word.
  void pretokenisationFollowsThePattern() {
    using V = std::vector<std::string>;
    QCOMPARE(gpt2_pretokenize("Hello world"), (V{"Hello", " world"}));
    QCOMPARE(gpt2_pretokenize("I'm SHOUT'S"), (V{"I", "'m", " SHOUT", "'", "S"}));
    QCOMPARE(gpt2_pretokenize("a 'd"), (V{"a", " '", "d"}));
    QCOMPARE(gpt2_pretokenize("x   y  "), (V{"x", "  ", " y", "  "}));
    QCOMPARE(gpt2_pretokenize("x\ny"), (V{"x", "\n", "y"}));
    QCOMPARE(gpt2_pretokenize("pi=3.14!?"), (V{"pi", "=", "3", ".", "14", "!?"}));
    QCOMPARE(gpt2_pretokenize(" 2024年"), (V{" 2024", "年"}));
    QCOMPARE(gpt2_pretokenize("🙂🚀 ok"), (V{"🙂🚀", " ok"}));
    QCOMPARE(gpt2_pretokenize(""), V{});
    QVERIFY_THROWS_EXCEPTION(ConfigError, gpt2_pretokenize(std::string("bad \xff byte")));
  }

  void byteSymbolsAndChips() {
    const auto& s = byte_symbols();
    QCOMPARE(s[' '], std::string("Ġ"));
    QCOMPARE(s['\n'], std::string("Ċ"));
    QCOMPARE(s[0], std::string("Ā"));
    QCOMPARE(s['!'], std::string("!"));
    QCOMPARE(s[0xAD], std::string("Ń"));  // the soft hyphen, the one byte of ¡…ÿ GPT-2 moves
    std::string bytes;
    QVERIFY(piece_bytes("Ġcat", bytes));
    QCOMPARE(bytes, std::string(" cat"));
    QVERIFY(!piece_bytes("猫", bytes));  // no byte's symbol: U+0100 … U+0143 and the printable bytes only
    QCOMPARE(display_piece("Ġcat", true), std::string("␣cat"));
    QCOMPARE(display_piece("Ċ", true), std::string("⏎"));
    QCOMPARE(display_piece("ĉ", true), std::string("⇥"));
    QCOMPARE(display_piece("ä¸", true), std::string("⟨E4 B8⟩"));  // a character the merges cut
    QCOMPARE(display_piece("ðŁĻĤ", true), std::string("🙂"));
    QCOMPARE(display_piece("Ġä¸Ń", true), std::string("␣中"));
    QCOMPARE(display_piece("##ing", false), std::string("##ing"));
  }

  // Merges by rank, every occurrence at once; a piece the vocabulary lacks is kept, marked.
  void mergesByRankAndUnknownPieces() {
    const ByteLevelBpe b = ByteLevelBpe::parse(R"({"a":0,"b":1,"c":2,"ab":3,"bc":4,"Ġ":5})", "#version: 0.2\nb c\na b\n",
                                               "vocab.json", "merges.txt");
    using V = std::vector<std::string>;
    QCOMPARE(b.merge({"a", "b", "c"}), (V{"a", "bc"}));  // "b c" ranks first
    QCOMPARE(b.merge({"a", "b", "a", "b"}), (V{"ab", "ab"}));
    const auto t = b.encode("ab d");
    QCOMPARE(t.size(), size_t{3});
    QCOMPARE(t[0].piece, std::string("ab"));
    QCOMPARE(t[0].id, 3);
    QCOMPARE(t[1].piece, std::string("Ġ"));
    QCOMPARE(t[2].piece, std::string("d"));
    QVERIFY(t[2].unknown());
    QCOMPARE(b.decode({3, 5, 2, 99, -1}), std::string("ab c"));  // ids outside are skipped
  }

  // The heap merge against the published loop, on random words and merge lists — pathological
  // ones included (a merge of merged pieces ranked before its parts, repeated pairs).
  void heapMergeEqualsThePublishedLoop() {
    uint64_t state = 12345;
    auto next = [&](uint64_t n) { state = state * 6364136223846793005ull + 1442695040888963407ull; return (state >> 33) % n; };
    const std::vector<std::string> alphabet{"a", "b", "c", "ab", "ba", "abc", "cc"};
    for (int trial = 0; trial < 200; ++trial) {
      std::string vocab = "{", merges;
      for (size_t i = 0; i < alphabet.size(); ++i) vocab += (i ? "," : "") + std::string("\"") + alphabet[i] + "\":" + std::to_string(i);
      vocab += "}";
      for (int m = 0, count = int(next(8)) + 1; m < count; ++m)
        merges += alphabet[next(alphabet.size())] + " " + alphabet[next(alphabet.size())] + "\n";
      const ByteLevelBpe b = ByteLevelBpe::parse(vocab, merges, "vocab.json", "merges.txt");
      std::vector<std::string> word;
      for (int k = 0, len = int(next(12)); k < len; ++k) word.push_back(alphabet[next(3)]);
      QVERIFY2(b.merge(word) == b.merge_naive(word), merges.c_str());
    }
    // A paragraph without spaces is one pre-token: the heap keeps it fast (the published loop is
    // quadratic in the run's length: a pass over every symbol for each merge it applies).
    const ByteLevelBpe g = golden_bpe();
    std::string para;
    for (int i = 0; i < 20000; ++i) para += "小猫坐在垫子上";
    const auto t = g.encode(para);
    std::vector<int> ids;
    for (const auto& x : t) ids.push_back(x.id);
    QCOMPARE(g.decode(ids), para);
  }

  // decode: a character the ids cut comes back as one U+FFFD per broken sequence, as Python's
  // bytes.decode("utf-8", errors="replace") gives it.
  void decodeReplacesBrokenSequences() {
    const ByteLevelBpe g = golden_bpe();
    const auto& s = byte_symbols();
    const auto id = [&](unsigned char c) { return g.id(s[c]); };
    QCOMPARE(g.decode({id(0xE5), id(0x9C), id('a')}), std::string("\uFFFDa"));       // a cut 3-byte character
    QCOMPARE(g.decode({id(0xFF), id(0xFE)}), std::string("\uFFFD\uFFFD"));           // two bytes that start nothing
    QCOMPARE(g.decode({id(0xE0), id(0x80), id('b')}), std::string("\uFFFD\uFFFDb"));  // E0 80: not a valid second byte
    QCOMPARE(g.decode({id(0xF0), id(0x9F), id(0x99)}), std::string("\uFFFD"));
  }

  void wordPieceByHand() {
    const WordPiece w =
        WordPiece::parse("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nun\n##aff\n##able\naff\n,\nhi\r\nx\n##x\n", "v.txt", true);
    using V = std::vector<std::string>;
    QCOMPARE(w.word_pieces("unaffable"), (V{"un", "##aff", "##able"}));
    QCOMPARE(w.word_pieces("unaffabley"), V{"[UNK]"});  // one uncovered part: the whole word
    QCOMPARE(w.word_pieces(std::string(100, 'x')).size(), size_t{100});  // x ##x ##x …
    QCOMPARE(w.word_pieces(std::string(101, 'x')), V{"[UNK]"});           // over 100 characters
    QCOMPARE(w.basic_tokenize("HI,\tÜber  猫猫"), (V{"hi", ",", "uber", "猫", "猫"}));
    QCOMPARE(w.id("hi"), 10);  // a Windows line end is not part of the token
    const auto t = w.encode("Hi [MASK]xyz");
    V pieces;
    for (const auto& x : t) pieces.push_back(x.piece);
    QCOMPARE(pieces, (V{"[CLS]", "hi", "[MASK]", "[UNK]", "[SEP]"}));
    QCOMPARE(t[3].id, 1);
    QCOMPARE(w.encode("hi", false).size(), size_t{1});
    std::string many;  // special tokens found in one pass: 20,000 of them
    for (int i = 0; i < 20000; ++i) many += "[MASK]";
    QCOMPARE(w.encode(many, false).size(), size_t{20000});
  }

  // Files: every refusal names the file and what is wrong; a FIFO is never read.
  void badFilesAreRefusedByName() {
    auto bpe = [](const char* vocab, const char* merges) {
      return refusal([&] { ByteLevelBpe::parse(vocab, merges, "vocab.json", "merges.txt"); });
    };
    QVERIFY(bpe("[1, 2]", "").contains(QStringLiteral("vocab.json: not a JSON object")));
    QVERIFY(bpe("{\"a\": ", "").contains(QStringLiteral("vocab.json")));
    QVERIFY(bpe("{}", "").contains(QStringLiteral("holds no token")));
    QVERIFY(bpe(R"({"a": "0"})", "").contains(QStringLiteral("'a'")));
    QVERIFY(bpe(R"({"a": -1})", "").contains(QStringLiteral("'a'")));
    QVERIFY(bpe(R"({"a": 0, "b": 2})", "").contains(QStringLiteral("0 … 1")));
    QVERIFY(bpe(R"({"a": 0, "b": 0})", "").contains(QStringLiteral("0 … 1")));
    QVERIFY(bpe(R"({"a": 0})", "#version: 0.2\na b\nabc\n").contains(QStringLiteral("merges.txt: line 3")));
    QVERIFY(bpe(R"({"a": 0})", "a  b\n").contains(QStringLiteral("line 1")));
    QVERIFY(bpe(R"({"a": 0})", "a \xff\n").contains(QStringLiteral("line 1 is not valid UTF-8")));
    QVERIFY(bpe(R"({"a": 0})", "\n\na b\r\n").isEmpty());  // blank lines and CRLF are fine

    auto wp = [](const std::string& text) { return refusal([&] { WordPiece::parse(text, "vocab.txt", true); }); };
    QVERIFY(wp("").contains(QStringLiteral("vocab.txt: holds no token")));
    QVERIFY(wp("[PAD]\n[CLS]\n").contains(QStringLiteral("'[UNK]'")));
    QVERIFY(wp("[UNK]\nbad\xc3\n").contains(QStringLiteral("line 2 is not valid UTF-8")));

    const auto dir = std::filesystem::temp_directory_path() / "attnlab-test-subword";
    std::filesystem::create_directories(dir);
    const std::string fifo = (dir / "vocab.txt").string();
    std::filesystem::remove(fifo);
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    const QString m = refusal([&] { WordPiece::load(fifo, true); });
    QVERIFY2(m.contains(QString::fromStdString(fifo)) && m.contains(QStringLiteral("not a regular file")), qPrintable(m));
    QVERIFY(refusal([&] { ByteLevelBpe::load((dir / "none.json").string(), fifo); }).contains(QStringLiteral("none.json")));
    std::filesystem::remove_all(dir);
  }
};

QTEST_GUILESS_MAIN(TestSubword)
#include "test_subword.moc"
