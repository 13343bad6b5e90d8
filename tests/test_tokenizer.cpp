// Tokenisation rules of the spec: whitespace, punctuation/symbols, CJK, NFC, padding.
#include <QtTest>

#include "forward/model.h"
#include "text/errors.h"
#include "text/tokenizer.h"

using namespace attnlab;
using Tokens = std::vector<std::string>;
Q_DECLARE_METATYPE(Tokens)

class TestTokenizer : public QObject {
  Q_OBJECT
 private slots:
  void rules_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<Tokens>("tokens");
    QTest::newRow("words") << "The cat  sat" << Tokens{"The", "cat", "sat"};
    QTest::newRow("apostrophe") << "don't" << Tokens{"don", "'", "t"};
    QTest::newRow("decimal") << "3.14" << Tokens{"3", ".", "14"};
    QTest::newRow("symbols") << "a+b=c $5" << Tokens{"a", "+", "b", "=", "c", "$", "5"};
    QTest::newRow("case kept") << "Hello HELLO" << Tokens{"Hello", "HELLO"};
    QTest::newRow("chinese") << QString::fromUtf8("我爱北京。") << Tokens{"我", "爱", "北", "京", "。"};
    QTest::newRow("full-width punctuation")
        << QString::fromUtf8("你好，世界！") << Tokens{"你", "好", "，", "世", "界", "！"};
    QTest::newRow("mixed scripts") << QString::fromUtf8("GPT模型v2") << Tokens{"GPT", "模", "型", "v2"};
    QTest::newRow("kana and hangul") << QString::fromUtf8("すし 한국") << Tokens{"す", "し", "한", "국"};
    QTest::newRow("tabs and newlines") << "a\tb\nc" << Tokens{"a", "b", "c"};
    // "e" + combining acute (U+0301) becomes the precomposed "é" under NFC.
    QTest::newRow("nfc") << QString::fromUtf8("cafe\xCC\x81") << Tokens{"caf\xC3\xA9"};
    QTest::newRow("brackets") << "[PAD]" << Tokens{"[", "PAD", "]"};
  }
  void rules() {
    QFETCH(QString, text);
    QFETCH(Tokens, tokens);
    QCOMPARE(tokenize(text.toStdString()), tokens);
  }

  void invalidUtf8IsAConfigError() {
    QVERIFY_THROWS_EXCEPTION(ConfigError, tokenize("abc\xFF\xFE"));
  }

  void batchIsPaddedOnTheRight() {
    const TokenBatch b = make_token_batch({"a b c", "d"}, "--text");
    QCOMPARE(b.batch(), 2);
    QCOMPARE(b.seq(), 3);
    QCOMPARE(b.tokens[1], (Tokens{"d", "[PAD]", "[PAD]"}));
    QCOMPARE(b.lengths, (std::vector<int>{3, 1}));
  }

  void emptyOrBlankSentenceIsAnError() {
    QVERIFY_THROWS_EXCEPTION(ConfigError, make_token_batch({"ok", "  \t "}, "--text"));
    QVERIFY_THROWS_EXCEPTION(ConfigError, make_token_batch({""}, "--text"));
    QVERIFY_THROWS_EXCEPTION(ConfigError, make_token_batch({}, "--text"));
    try {
      make_token_batch({"ok", " "}, "--text");
      QFAIL("a blank sentence was accepted");
    } catch (const ConfigError& e) {  // the second sentence: sentences count from 0, as everywhere
      QVERIFY2(std::string(e.what()).find("--text: sentence 1 is empty or blank") != std::string::npos, e.what());
    }
  }

  void vocabularyInOrderOfFirstAppearance() {
    const Batch b = make_batch({"b a b", "c"}, {"a z"});
    QCOMPARE(b.vocab.words, (Tokens{"[PAD]", "a", "z", "b", "c"}));  // memory first, then text
    QCOMPARE(b.memory.batch(), 2);  // one memory sentence shared by both
    QCOMPARE(b.vocab.find("b"), 3);
    QCOMPARE(b.vocab.find("[PAD]"), 0);
    QCOMPARE(b.vocab.find("unseen"), -1);  // looking up adds nothing
    QCOMPARE(b.vocab.words.size(), 5u);
  }

  void memoryCountMustMatch() {
    QVERIFY_THROWS_EXCEPTION(ConfigError, make_batch({"a", "b"}, {"x", "y", "z"}));
  }
};

QTEST_GUILESS_MAIN(TestTokenizer)
#include "test_tokenizer.moc"
