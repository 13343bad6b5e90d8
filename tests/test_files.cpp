// Files a user hands the program and folders it writes (core/io/files.h, core/io/bundle.h): only
// regular files are read, with the size checked first; an export never replaces or deletes what
// it did not create, even when a folder appears while it runs; temporaries of a dead process are
// swept, and only those; a signal removes the running process's temporaries.
#include <QtTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "forward/model.h"
#include "io/bundle.h"
#include "io/files.h"
#include "model/weights.h"
#include "text/errors.h"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// The DataError message of reading `path`, or "" when it was read.
std::string read_refusal(const std::string& path, uint64_t limit = 1024) {
  try {
    read_regular_file(path, limit, Msg::weights_file);
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

// A PID that no process has: a child that has already exited and been reaped.
pid_t dead_pid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

// The names in `dir` that start with '.' (temporaries are hidden).
QStringList hidden_entries(const fs::path& dir) {
  QStringList out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string()[0] == '.') out << QString::fromStdString(e.path().filename().string());
  return out;
}

struct Tiny {
  ModelConfig cfg;
  Batch batch;
  Weights weights;
  Trace trace;
  Tiny() {
    cfg.d_model = 8;
    cfg.heads = 2;
    cfg.d_ff = 16;
    batch = make_batch({"the cat sat"}, {});
    weights = init_weights(cfg);
    forward(cfg, weights, batch, trace);
  }
  void write(const fs::path& out, bool force = false, std::function<void(const std::string&)> extra = {}) const {
    ExportOptions opt;
    opt.out_dir = out.string();
    opt.force = force;
    opt.extra = std::move(extra);
    write_bundle(opt, cfg, batch, weights, trace, RunInfo{});
  }
};

}  // namespace

class TestFiles : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  fs::path dir() const { return fs::path(tmp_.path().toStdString()); }

 private slots:
  void init() {
    for (const auto& e : fs::directory_iterator(dir())) fs::remove_all(e.path());
  }

  void readsARegularFileWhole() {
    write_text(dir() / "a.txt", std::string("x\0y\nz", 5));
    QCOMPARE(read_regular_file((dir() / "a.txt").string(), 5, Msg::weights_file), std::string("x\0y\nz", 5));
    write_text(dir() / "empty", "");
    QCOMPARE(read_regular_file((dir() / "empty").string(), 0, Msg::weights_file), std::string());
  }

  void refusesWhatIsNotARegularFile_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("says");
    QTest::newRow("missing") << "missing" << "no such file";
    QTest::newRow("folder") << "folder" << "is a folder, not a file";
    QTest::newRow("FIFO") << "fifo" << "is a named pipe (FIFO), not a regular file";
    QTest::newRow("/dev/zero") << "device" << "is a device, not a regular file";
    QTest::newRow("symbolic-link loop") << "loop" << "too many symbolic links";
    QTest::newRow("over the limit") << "large" << "is 2.1 MiB, larger than the limit of 1 MiB";
    QTest::newRow("empty name") << "empty" << "no file name given";
    QTest::newRow("NUL in the name") << "nul" << "the file name contains a NUL character";
  }
  void refusesWhatIsNotARegularFile() {
    QFETCH(QString, kind);
    QFETCH(QString, says);
    std::string path = (dir() / "x").string();
    if (kind == "folder") fs::create_directory(path);
    if (kind == "fifo") QCOMPARE(mkfifo(path.c_str(), 0600), 0);  // reading it would wait for a writer forever
    if (kind == "device") path = "/dev/zero";                       // reading it would never end
    if (kind == "loop") {
      fs::create_symlink(dir() / "y", path);
      fs::create_symlink(path, dir() / "y");
    }
    if (kind == "large") {  // sparse: nothing is written, nothing must be read
      const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0600);
      QCOMPARE(ftruncate(fd, 2 * 1024 * 1024 + 1), 0);
      ::close(fd);
    }
    if (kind == "empty") path.clear();
    if (kind == "nul") path = std::string("a\0b", 3);
    const std::string msg = read_refusal(path, kMiB);
    QVERIFY2(QString::fromStdString(msg).contains(says), msg.c_str());
    QVERIFY2(msg.rfind("weights file '", 0) == 0, msg.c_str());  // names what it was reading
    QVERIFY2(msg.find('\n') == std::string::npos, msg.c_str());
  }

  void namesStayOnOneLine() {
    QCOMPARE(printable_name(std::string("a\nb\0c\x1b" "d\te\x7f", 10)), std::string("a\\nb\\0c\\x1bd\\te\\x7f"));
    QCOMPARE(printable_name("猫 – ok"), std::string("猫 – ok"));
    const std::string msg = read_refusal((dir() / "line\nbreak").string());
    QVERIFY2(msg.find('\n') == std::string::npos && msg.find("line\\nbreak") != std::string::npos, msg.c_str());
  }

  void aTemporaryIsMarkedAndRemoved() {
    fs::path made;
    {
      TempDir t(dir() / "run1", ".tmp-");
      made = t.path();
      const std::string name = made.filename().string();
      QVERIFY2(name.rfind(".run1.tmp-" + std::to_string(getpid()) + "-", 0) == 0, name.c_str());
      QVERIFY(fs::exists(made / ".attnlab-temporary"));
    }
    QVERIFY(!fs::exists(made));  // removed with everything in it
    {
      TempDir t(dir() / "run2", ".tmp-");
      made = t.path();
      write_text(made / "kept", "x");
      t.release();  // moved into place by the caller: no longer ours to remove
    }
    QVERIFY(fs::exists(made / "kept"));
  }

  void movingIntoPlaceNeverReplaces() {
    TempDir t(dir() / "out", ".tmp-");
    write_text(t.path() / "new", "new");
    fs::create_directory(dir() / "out");  // even an empty folder: rename(2) would replace it silently
    QVERIFY_THROWS_EXCEPTION(ConfigError, move_into_place(t.path(), dir() / "out"));
    QVERIFY(fs::is_empty(dir() / "out"));
    QCOMPARE(read_text(t.path() / "new"), std::string("new"));
    fs::remove(dir() / "out");
    move_into_place(t.path(), dir() / "out");
    t.release();
    QCOMPARE(read_text(dir() / "out" / "new"), std::string("new"));

    write_text(dir() / "file", "mine");
    write_text(dir() / "candidate", "theirs");
    QVERIFY_THROWS_EXCEPTION(ConfigError, move_file_into_place(dir() / "candidate", dir() / "file"));
    QCOMPARE(read_text(dir() / "file"), std::string("mine"));
  }

  // A whole file through a temporary: a user's file is kept unless replacing was asked for, and a
  // write that fails leaves nothing behind (no temporary, no target).
  void writeFileAtomicallyKeepsOrReplacesAndCleansUp() {
    write_text(dir() / "model", "mine");
    QVERIFY_THROWS_EXCEPTION(ConfigError, write_file_atomically(dir() / "model", "new", false, Msg::tr_cannot_write));
    QCOMPARE(read_text(dir() / "model"), std::string("mine"));
    write_file_atomically(dir() / "model", "new", true, Msg::tr_cannot_write);
    QCOMPARE(read_text(dir() / "model"), std::string("new"));
    write_file_atomically(dir() / "fresh", std::string(100000, 'x'), false, Msg::tr_cannot_write);
    QCOMPARE(read_text(dir() / "fresh").size(), size_t(100000));
    QVERIFY_THROWS_EXCEPTION(DataError, write_file_atomically(dir() / "missing" / "model", "x", true, Msg::tr_cannot_write));
    QVERIFY(!fs::exists(dir() / "missing"));
    QVERIFY2(hidden_entries(dir()).isEmpty(), qPrintable(hidden_entries(dir()).join(u' ')));
  }

  void exchangeSwapsBothWays() {
    fs::create_directory(dir() / "a");
    fs::create_directory(dir() / "b");
    write_text(dir() / "a" / "x", "a");
    write_text(dir() / "b" / "x", "b");
    exchange_into_place(dir() / "a", dir() / "b");
    QCOMPARE(read_text(dir() / "a" / "x"), std::string("b"));
    QCOMPARE(read_text(dir() / "b" / "x"), std::string("a"));
  }

  void sweepRemovesOnlyADeadProcessesTemporaries() {
    const std::string dead = std::to_string(dead_pid()), live = std::to_string(getpid());
    auto folder = [&](const std::string& name) {
      fs::create_directory(dir() / name);
      return dir() / name;
    };
    write_text(folder(".run.tmp-" + dead + "-1") / ".attnlab-temporary", dead + " 1\n");  // ours, dead: swept
    write_text(folder(".run.old-" + dead + "-2") / "manifest.json", "{\"format\": \"attnlab-trace\"}");  // swept
    folder(".run.tmp-" + dead + "-3");                                                    // empty, dead: swept
    write_text(folder(".run.tmp-" + live + "-4") / ".attnlab-temporary", live + " 1\n");  // alive: kept
    write_text(folder(".run.tmp-" + dead + "-5") / "notes.txt", "a user's");            // not ours: kept
    write_text(folder(".run.tmp-x-6") / ".attnlab-temporary", "x\n");                     // not our name: kept
    write_text(folder("run.tmp-" + dead + "-7") / ".attnlab-temporary", dead + " 1\n");   // not hidden: kept
    fs::create_directory_symlink(dir() / ("run.tmp-" + dead + "-7"), dir() / (".run.tmp-" + dead + "-8"));  // a link: kept
    QCOMPARE(sweep_dead_temporaries(dir()), 3);
    QStringList left = hidden_entries(dir());
    left.sort();
    QStringList want{QString::fromStdString(".run.tmp-" + dead + "-5"), QString::fromStdString(".run.tmp-" + dead + "-8"),
                     QString::fromStdString(".run.tmp-" + live + "-4"), QStringLiteral(".run.tmp-x-6")};
    want.sort();
    QCOMPARE(left, want);
    QVERIFY(fs::exists(dir() / ("run.tmp-" + dead + "-7")));
  }

  void aSignalRemovesTheTemporaries() {
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
      const pid_t child = fork();
      if (child == 0) {
        install_cleanup_on_signals();
        TempDir t(dir() / "signalled", ".tmp-");
        write_text(t.path() / "trace.npz", std::string(4096, 'x'));
        fs::create_directory(t.path() / "heatmaps");
        write_text(t.path() / "heatmaps" / "a.csv", "1,2");
        raise(sig);
        _exit(3);  // not reached: the signal ends the process
      }
      int status = 0;
      waitpid(child, &status, 0);
      QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == sig, "the process did not end by its signal");
      QCOMPARE(hidden_entries(dir()), QStringList());
    }
  }

  void checkOutputDirRefusesWhatItMustNotReplace_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<bool>("force");
    QTest::addColumn<QString>("says");
    QTest::newRow("a full folder") << "full" << false << "exists and is not empty";
    QTest::newRow("a full folder, --force") << "full" << true << "is not an Attention Lab bundle";
    QTest::newRow("a file") << "file" << true << "exists and is not a folder";
    QTest::newRow("a symbolic link") << "link" << true << "is a symbolic link";
    QTest::newRow("the current folder") << "dot" << true << "is the current folder or holds it";
    QTest::newRow("a parent of it") << "dotdot" << true << "is the current folder or holds it";
    QTest::newRow("the root") << "root" << true << "is the root folder";
    QTest::newRow("a name too long") << "long" << false << "use at most";
  }
  void checkOutputDirRefusesWhatItMustNotReplace() {
    QFETCH(QString, kind);
    QFETCH(bool, force);
    QFETCH(QString, says);
    std::string out = (dir() / "out").string();
    if (kind == "full") {
      fs::create_directory(out);
      write_text(fs::path(out) / "thesis.tex", "years of work");
    }
    if (kind == "file") write_text(out, "x");
    if (kind == "link") {
      fs::create_directory(dir() / "real");
      fs::create_directory_symlink(dir() / "real", out);
    }
    const fs::path cwd = fs::current_path();
    if (kind == "dot" || kind == "dotdot") fs::current_path(dir());
    if (kind == "dot") out = ".";
    if (kind == "dotdot") out = "..";
    if (kind == "root") out = "/";
    if (kind == "long") out = (dir() / std::string(240, 'n')).string();
    QString msg;
    try {
      check_output_dir(out, force);
    } catch (const ConfigError& e) {
      msg = QString::fromUtf8(e.what());
    }
    fs::current_path(cwd);
    QVERIFY2(msg.startsWith("--out: '") && msg.contains(says), qPrintable(msg));
    if (kind == "full") QCOMPARE(read_text(dir() / "out" / "thesis.tex"), std::string("years of work"));
    if (kind == "link") QVERIFY(fs::is_symlink(dir() / "out"));
  }

  void anExportNeverReplacesAFolderThatAppearedMeanwhile() {
    const Tiny t;
    const fs::path out = dir() / "bundle";
    // Just before the move, another program makes the folder and writes into it.
    QVERIFY_THROWS_EXCEPTION(ConfigError, t.write(out, false, [&](const std::string&) {
      fs::create_directory(out);
      write_text(out / "theirs.txt", "theirs");
    }));
    QCOMPARE(read_text(out / "theirs.txt"), std::string("theirs"));
    QCOMPARE(hidden_entries(dir()), QStringList());  // and nothing of ours is left behind
    // The same with --force: their folder is no bundle, so it stays.
    fs::remove_all(out);
    QVERIFY_THROWS_EXCEPTION(ConfigError, t.write(out, true, [&](const std::string&) {
      fs::create_directory(out);
      write_text(out / "theirs.txt", "theirs");
    }));
    QCOMPARE(read_text(out / "theirs.txt"), std::string("theirs"));
    QCOMPARE(hidden_entries(dir()), QStringList());
  }

  void twoExportsToOneFolder_oneWinsTheOtherIsRefused() {
    const Tiny t;
    const fs::path out = dir() / "bundle";
    bool second_done = false;
    try {
      t.write(out, false, [&](const std::string&) {
        t.write(out);  // the second export, start to end, while the first is still writing
        second_done = true;
      });
      QFAIL("the first export replaced the second one's bundle");
    } catch (const ConfigError& e) {
      QVERIFY2(QString(e.what()).contains("appeared while the export ran"), e.what());
    }
    QVERIFY(second_done);
    QVERIFY(is_bundle_folder(out.string()));
    QCOMPARE(hidden_entries(dir()), QStringList());
  }

  void forceReplacesAnEarlierBundleOnly() {
    const Tiny t;
    const fs::path out = dir() / "bundle";
    t.write(out);
    write_text(out / "old-extra.txt", "from the earlier bundle");
    t.write(out, true);
    QVERIFY(is_bundle_folder(out.string()));
    QVERIFY(!fs::exists(out / "old-extra.txt"));  // the earlier bundle went, whole
    QVERIFY(fs::exists(out / "trace.npz"));
    QVERIFY(!fs::exists(out / ".attnlab-temporary"));  // the new one carries no marker
    QCOMPARE(hidden_entries(dir()), QStringList());
    fs::remove_all(out);
    fs::create_directory(out);  // an empty folder is taken without --force
    t.write(out);
    QVERIFY(is_bundle_folder(out.string()));
  }

  void theNextExportSweepsWhatAKilledOneLeft() {
    const Tiny t;
    const std::string dead = std::to_string(dead_pid());
    const fs::path left = dir() / (".bundle.tmp-" + dead + "-42");
    fs::create_directory(left);
    write_text(left / ".attnlab-temporary", dead + " 1\n");
    write_text(left / "trace.npz", std::string(1 << 16, 'x'));
    t.write(dir() / "other");
    QVERIFY(!fs::exists(left));
  }
};

QTEST_GUILESS_MAIN(TestFiles)
#include "test_files.moc"
