// safetensors round trip and every way a file can lie.
#include <QtTest>

#include <cstring>
#include <nlohmann/json.hpp>

#include "io/safetensors.h"
#include "text/errors.h"

using namespace attnlab;
using json = nlohmann::json;

namespace {

std::string file_with(const json& header, const std::string& data) {
  const std::string h = header.dump();
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((h.size() >> (8 * i)) & 0xFF);
  return out + h + data;
}

// A file whose header is the given text exactly (file_with re-serialises, losing duplicates).
std::string raw_file(const std::string& h, const std::string& data) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((h.size() >> (8 * i)) & 0xFF);
  return out + h + data;
}

std::string f32_bytes(std::initializer_list<float> v) {
  std::string s;
  for (float f : v) s.append(reinterpret_cast<const char*>(&f), 4);
  return s;
}

// The DataError message of parsing `bytes`, or "" when it parsed.
std::string error_of(const std::string& bytes) {
  try {
    parse_safetensors(bytes);
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

class TestSafetensors : public QObject {
  Q_OBJECT
 private slots:
  void roundTrip() {
    Tensor a = Tensor::from({2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor b = Tensor::from({3, 2}, {1, 2, 3, 4, 5, 6}).transpose(0, 1);  // strided: written in C order
    const std::string bytes = serialize_safetensors({{"b", b}, {"a", a}}, {{"format", "x"}});
    QCOMPARE((read_u64(bytes) + 8) % 8, 0u);  // data aligned to 8 bytes
    const auto f = parse_safetensors(bytes);
    QCOMPARE(f.metadata.at("format"), std::string("x"));
    QCOMPARE(f.tensors.size(), 2u);
    for (const auto& [name, t] : f.tensors) {
      const Tensor& orig = name == "a" ? a : b;
      QCOMPARE(t.shape(), orig.shape());
      QCOMPARE(t.to_vector(), orig.to_vector());
    }
  }

  void halfAndBfloat16AreConverted() {
    // F16: 1.0 = 0x3C00, -2.0 = 0xC000, 65504 = 0x7BFF, smallest subnormal 0x0001 = 2^-24.
    const std::string f16("\x00\x3C\x00\xC0\xFF\x7B\x01\x00", 8);
    // BF16: 1.0 = 0x3F80, -0.5 = 0xBF00.
    const std::string bf16("\x80\x3F\x00\xBF", 4);
    const json h = {{"h", {{"dtype", "F16"}, {"shape", {4}}, {"data_offsets", {0, 8}}}},
                    {"g", {{"dtype", "BF16"}, {"shape", {2}}, {"data_offsets", {8, 12}}}}};
    const auto f = parse_safetensors(file_with(h, f16 + bf16));
    for (const auto& [name, t] : f.tensors) {
      if (name == "h") QCOMPARE(t.to_vector(), (std::vector<float>{1.0f, -2.0f, 65504.0f, std::ldexp(1.0f, -24)}));
      else QCOMPARE(t.to_vector(), (std::vector<float>{1.0f, -0.5f}));
    }
  }

  void lyingFilesNameTheProblem_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("mention");
    const std::string ok = f32_bytes({1, 2});
    auto add = [](const char* row, const std::string& b, const char* m) {
      QTest::newRow(row) << QByteArray(b.data(), static_cast<qsizetype>(b.size())) << QString(m);
    };
    add("too short", "abc", "shorter");
    add("header past end", std::string("\xFF\xFF\x00\x00\x00\x00\x00\x00", 8) + "{}", "past the end");
    add("huge header length", std::string("\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF", 8), "past the end");
    add("not json", file_with(json("x"), "") .replace(8, 3, "{{{"), "JSON");
    add("array header", file_with(json::array(), ""), "JSON object");
    add("no offsets", file_with({{"w", {{"dtype", "F32"}, {"shape", {2}}}}}, ok), "'w'");
    add("bad dtype", file_with({{"w", {{"dtype", "F64"}, {"shape", {1}}, {"data_offsets", {0, 8}}}}}, ok), "F64");
    add("shape vs bytes", file_with({{"w", {{"dtype", "F32"}, {"shape", {3}}, {"data_offsets", {0, 8}}}}}, ok), "'w'");
    add("offsets past data", file_with({{"w", {{"dtype", "F32"}, {"shape", {4}}, {"data_offsets", {0, 16}}}}}, ok), "outside");
    add("reversed offsets", file_with({{"w", {{"dtype", "F32"}, {"shape", {0}}, {"data_offsets", {8, 0}}}}}, ok), "'w'");
    add("negative dim", file_with({{"w", {{"dtype", "F32"}, {"shape", {-2}}, {"data_offsets", {0, 8}}}}}, ok), "'w'");
    add("overflowing shape",
        file_with({{"w", {{"dtype", "F32"}, {"shape", {1u << 31, 1u << 31, 1u << 31}}, {"data_offsets", {0, 8}}}}}, ok),
        "'w'");
    add("overlap", file_with({{"a", {{"dtype", "F32"}, {"shape", {2}}, {"data_offsets", {0, 8}}}},
                              {"b", {{"dtype", "F32"}, {"shape", {1}}, {"data_offsets", {4, 8}}}}}, ok), "overlap");
    add("metadata not strings", file_with({{"__metadata__", {{"d_model", 64}}}}, ""), "d_model");
    // What the reference reader refuses too (issue 18): a name twice, bytes nobody owns, NULs.
    const std::string w = R"("w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]})";
    add("a tensor named twice", raw_file("{" + w + ", " + w + "}", ok), "names 'w' twice");
    add("a metadata key twice", raw_file(R"({"__metadata__": {"a": "1", "a": "2"}})", ""), "names 'a' twice");
    add("trailing bytes", file_with({{"w", {{"dtype", "F32"}, {"shape", {2}}, {"data_offsets", {0, 8}}}}}, ok + "xyz"),
        "3 bytes after its last tensor");
    add("a gap", file_with({{"a", {{"dtype", "F32"}, {"shape", {1}}, {"data_offsets", {0, 4}}}},
                            {"b", {{"dtype", "F32"}, {"shape", {1}}, {"data_offsets", {8, 12}}}}}, ok + "abcd"),
        "data bytes 4 … 8 before tensor 'b' belong to no tensor");
    add("a gap before the first", file_with({{"a", {{"dtype", "F32"}, {"shape", {1}}, {"data_offsets", {4, 8}}}}}, ok),
        "data bytes 0 … 4 before tensor 'a'");
    add("a header padded with NULs", raw_file("{" + w + "}" + std::string(6, '\0'), ok), "NUL byte");
    add("a header that is not an object", raw_file(" [1]", ""), "must start with '{'");
  }
  void lyingFilesNameTheProblem() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, mention);
    const std::string msg = error_of(bytes.toStdString());
    QVERIFY2(!msg.empty(), "a bad file was accepted");
    QVERIFY2(QString::fromStdString(msg).contains(mention), msg.c_str());
  }

  void missingFileIsADataError() {
    QVERIFY_THROWS_EXCEPTION(DataError, read_safetensors("/nonexistent/weights.safetensors"));
  }

  void spacesMayPadTheHeader() {  // as the reference writer aligns it
    const std::string w = R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}   )";
    QCOMPARE(parse_safetensors(raw_file(w, f32_bytes({1, 2}))).tensors.size(), size_t{1});
  }

  void aFifoOrDeviceIsRefusedByName() {  // never read: a FIFO would wait for a writer forever
    QVERIFY_THROWS_EXCEPTION(DataError, read_safetensors("/dev/zero"));
    try {
      read_safetensors("/dev/zero");
    } catch (const DataError& e) {
      QVERIFY2(QString(e.what()).contains("weights file '/dev/zero': is a device"), e.what());
    }
  }

 private:
  static uint64_t read_u64(const std::string& b) {
    uint64_t v;
    std::memcpy(&v, b.data(), 8);
    return v;
  }
};

QTEST_GUILESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
