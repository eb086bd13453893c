// Sizes and input files that used to crash: NDArray::create against overflow and the
// memory limit, .npy files whose header disagrees with their size or is huge or holds raw
// bytes, bounded reading of input files (devices, directories, the size limit),
// quoteForMessage, checked shapes of symbolic sizes and the interpreter's memory in all.
#include "core/ir/file_read.h"
#include "core/ir/interpreter.h"
#include "core/ir/ndarray.h"
#include "core/ir/npy.h"
#include "core/ir/op.h"
#include "core/ir/resource_limits.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace loopscape;
using namespace loopscape::ir;

namespace {

/// Sets the limits for one test and restores the defaults after it.
struct ScopedLimits {
  explicit ScopedLimits(ResourceLimits limits) { setResourceLimits(limits); }
  ~ScopedLimits() { setResourceLimits(ResourceLimits{}); }
};

std::vector<std::byte> bytesOf(const std::string& s) {
  std::vector<std::byte> out(s.size());
  std::memcpy(out.data(), s.data(), s.size());
  return out;
}

/// A version 1.0 .npy file with header `dict` and `data` after it.
std::string npyFile(const std::string& dict, const std::string& data) {
  std::string h = dict;
  h += std::string(64 - (10 + h.size() + 1) % 64, ' ') + "\n";
  std::string s("\x93NUMPY\x01\x00", 8);
  s += static_cast<char>(h.size() & 0xff);
  s += static_cast<char>(h.size() >> 8);
  return s + h + data;
}

void write(const QString& path, const std::string& bytes) {
  std::ofstream out(path.toStdString(), std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

QString message(const Diagnostic& d) { return QString::fromStdString(d.message); }

} // namespace

class TestNpyLimits : public QObject {
  Q_OBJECT

private Q_SLOTS:
  // ---- NDArray::create ------------------------------------------------------------

  void createChecksTheByteSize() {
    auto huge = NDArray::create({1073741824, 1073741824, 4}, DataType::float32(), "A");
    QVERIFY(!huge);
    QCOMPARE(QString::fromStdString(huge.error().code), QString("ndarray.too-large"));
    QCOMPARE(message(huge.error()), QString("buffer 'A' float32(1073741824, 1073741824, 4) is too large: its size "
                                            "in bytes does not fit in 64 bits; use smaller sizes"));
    // 2^62 elements fit in int64, their bytes do not.
    auto bytes = NDArray::create({std::int64_t{1} << 62}, DataType::float32());
    QVERIFY(!bytes);
    QCOMPARE(message(bytes.error()),
             QString("array float32(4611686018427387904) is too large: its size in bytes does not fit in 64 bits; "
                     "use smaller sizes"));
    // Empty whatever the other extents: no overflow.
    auto empty = NDArray::create({std::int64_t{1} << 62, std::int64_t{1} << 62, 0}, DataType::float64());
    QVERIFY(empty && empty->defined());
    QCOMPARE(empty->numel(), std::int64_t{0});
    QCOMPARE(empty->clone().nbytes(), std::size_t{0});
    auto negative = NDArray::create({2, -1}, DataType::int8(), "B");
    QVERIFY(!negative);
    QCOMPARE(QString::fromStdString(negative.error().code), QString("ndarray.negative-extent"));
    QCOMPARE(message(negative.error()), QString("buffer 'B' int8(2, -1) has negative extent -1 in dimension 1"));
  }

  void createChecksTheMemoryLimit() {
    auto tera = NDArray::create({1048576, 1048576}, DataType::float32(), "A");
    QVERIFY(!tera);
    QCOMPARE(message(tera.error()), QString("buffer 'A' float32(1048576, 1048576) is too large: it needs "
                                            "4398046511104 bytes (4 TiB), more than the memory limit of 8589934592 "
                                            "bytes (8 GiB); use smaller sizes or raise the limit (--max-memory)"));
    ResourceLimits small;
    small.maxBufferBytes = 1000;
    ScopedLimits scoped(small);
    QVERIFY(NDArray::create({250}, DataType::float32()));
    auto over = NDArray::create({251}, DataType::float32());
    QVERIFY(!over);
    QCOMPARE(message(over.error()), QString("array float32(251) is too large: it needs 1004 bytes (1004 bytes), more "
                                            "than the memory limit of 1000 bytes (1000 bytes); use smaller sizes or "
                                            "raise the limit (--max-memory)"));
    auto made = NDArray::create({2, 3}, DataType::int32());
    QVERIFY(made && made->defined());
    QCOMPARE(made->numel(), std::int64_t{6});
    QCOMPARE(made->getInt(5), std::int64_t{0});
  }

  // ---- .npy -----------------------------------------------------------------------

  void npySizeMustMatchTheHeader() {
    const std::string dict = "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }";
    auto longer = parseNpy(bytesOf(npyFile(dict, std::string(7, 'x'))), "long.npy");
    QVERIFY(!longer);
    QCOMPARE(QString::fromStdString(longer.error().code), QString("npy.size-mismatch"));
    QCOMPARE(message(longer.error()), QString("'long.npy': the file holds 3 more bytes after the 4 bytes of data its "
                                              "header declares for int16(2,); the header does not match the data"));
    QVERIFY(parseNpy(bytesOf(npyFile(dict, std::string(4, 'x'))), "exact.npy"));
    auto overflow = parseNpy(
        bytesOf(npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }", "")),
        "o.npy");
    QVERIFY(!overflow);
    QCOMPARE(message(overflow.error()), QString("'o.npy': the header's shape float64(1099511627776, 1099511627776) is "
                                                "too large: its size in bytes does not fit in 64 bits"));
  }

  void npyHeadersAreBoundedInMessages() {
    // 100,000 dimensions: refused with a message of bounded length.
    std::string shape = "(";
    for (int i = 0; i < 100000; ++i)
      shape += "1, ";
    shape += ")";
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    std::string h = dict + std::string(64 - (12 + dict.size() + 1) % 64, ' ') + "\n";
    std::string file("\x93NUMPY\x02\x00", 8);
    for (int i = 0; i < 4; ++i)
      file += static_cast<char>((h.size() >> (8 * i)) & 0xff);
    auto many = parseNpy(bytesOf(file + h + "abcd"), "many.npy");
    QVERIFY(!many);
    QCOMPARE(message(many.error()), QString("'many.npy': the shape has 100000 dimensions, more than the 64 supported"));
    // Raw NUL and control bytes are escaped, a long header is cut.
    std::string raw = "{'descr': '<f4', 'fortran_order': Maybe\x01";
    raw += '\0';
    raw += std::string(200, 'z');
    auto bad = parseNpy(bytesOf(npyFile(raw, "")), "raw.npy");
    QVERIFY(!bad);
    QCOMPARE(message(bad.error()),
             QString("'raw.npy': malformed header ('fortran_order' is not True or False): {'descr': '<f4', "
                     "'fortran_order': Maybe\\x01\\0" +
                     QString(39, 'z') + "\u2026"));
    // A header length of 4 GiB is refused before anything is read into memory.
    std::string giant("\x93NUMPY\x02\x00\xff\xff\xff\xff{", 13);
    auto g = parseNpy(bytesOf(giant), "giant.npy");
    QVERIFY(!g);
    QCOMPARE(message(g.error()),
             QString("'giant.npy': header of 4294967295 bytes is longer than the 1048576 bytes this reader accepts"));
  }

  void npyFilesMustBeRegular() {
    QTemporaryDir dir;
    QDir(dir.path()).mkpath("d.npy");
    auto d = loadNpy(dir.filePath("d.npy").toStdString());
    QVERIFY(!d);
    QCOMPARE(message(d.error()), QString("'%1': cannot open: it is a directory").arg(dir.filePath("d.npy")));
    QVERIFY(QFile::link("/dev/zero", dir.filePath("zero.npy")));
    auto z = loadNpy(dir.filePath("zero.npy").toStdString());
    QVERIFY(!z);
    QCOMPARE(
        message(z.error()),
        QString("'%1': cannot open: it is a device or a socket, not a regular file").arg(dir.filePath("zero.npy")));
    // Larger than its header says; then exact (read back through the bounded reader).
    const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    write(dir.filePath("long.npy"), npyFile(dict, std::string(9, '\0')));
    auto l = loadNpy(dir.filePath("long.npy").toStdString());
    QVERIFY(!l);
    QCOMPARE(QString::fromStdString(l.error().code), QString("npy.size-mismatch"));
    NDArray a({3, 2}, DataType::float64());
    a.fillRandom(7);
    QVERIFY(saveNpy(dir.filePath("ok.npy").toStdString(), a));
    auto back = loadNpy(dir.filePath("ok.npy").toStdString());
    QVERIFY(back);
    QCOMPARE(back->checksum(), a.checksum());
    // A header promising more than the file holds: refused before allocating.
    write(dir.filePath("short.npy"),
          npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, 1048576), }", "abcd"));
    auto s = loadNpy(dir.filePath("short.npy").toStdString());
    QVERIFY(!s);
    QCOMPARE(message(s.error()), QString("'%1': data is truncated: expected 4398046511104 bytes for "
                                         "float32(1048576, 1048576), found 4")
                                     .arg(dir.filePath("short.npy")));
  }

  // ---- input files ----------------------------------------------------------------

  void filesAreReadWithinTheLimit() {
    auto dev = readSourceFile("/dev/urandom");
    QVERIFY(!dev);
    QCOMPARE(QString::fromStdString(dev.error().code), QString("file.not-regular"));
    QCOMPARE(message(dev.error()), QString("cannot read '/dev/urandom': it is a character device, not a regular file"));
    QTemporaryDir dir;
    auto d = readSourceFile(dir.path().toStdString());
    QVERIFY(!d);
    QCOMPARE(message(d.error()), QString("cannot read '%1': it is a directory").arg(dir.path()));
    write(dir.filePath("a.te"), std::string(100, 'x'));
    auto small = readFileBounded(dir.filePath("a.te").toStdString(), 99, "test files");
    QVERIFY(!small);
    QCOMPARE(message(small.error()), QString("cannot read '%1': it is larger than 99 bytes (99 bytes), the limit for "
                                             "test files")
                                         .arg(dir.filePath("a.te")));
    auto whole = readFileBounded(dir.filePath("a.te").toStdString(), 100, "test files");
    QVERIFY(whole);
    QCOMPARE(whole->size(), std::size_t{100});
    // /proc files claim size 0: read in chunks, within the limit.
    auto proc = readFileBounded("/proc/self/status", 1 << 20, "test files");
    QVERIFY(proc && proc->find("Name:") != std::string::npos);
    auto missing = readSourceFile("/nonexistent/x.te");
    QVERIFY(!missing);
    QCOMPARE(message(missing.error()), QString("cannot read '/nonexistent/x.te': No such file or directory"));
  }

  void quoteForMessageEscapesAndCuts_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("maxChars");
    QTest::addColumn<QString>("quoted");
    QTest::newRow("plain") << QByteArray("shape") << 80 << "shape";
    QTest::newRow("nul and controls") << QByteArray("a\0b\n\t\x7f", 6) << 80 << "a\\0b\\n\\t\\x7f";
    QTest::newRow("cut") << QByteArray("abcdef") << 3 << "abc\u2026";
    QTest::newRow("exact length") << QByteArray("abc") << 3 << "abc";
    QTest::newRow("utf-8 kept") << QByteArray("d\xc3\xa9j\xc3\xa0") << 80 << "d\u00e9j\u00e0";
    QTest::newRow("bad utf-8") << QByteArray("\x93NUMPY\xc3") << 80 << "\\x93NUMPY\\xc3";
    QTest::newRow("overlong lead") << QByteArray("\xf8\x80\x80") << 80 << "\\xf8\\x80\\x80";
  }
  void quoteForMessageEscapesAndCuts() {
    QFETCH(QByteArray, text);
    QFETCH(int, maxChars);
    QFETCH(QString, quoted);
    QCOMPARE(QString::fromStdString(
                 quoteForMessage(std::string_view(text.constData(), text.size()), static_cast<std::size_t>(maxChars))),
             quoted);
  }

  // ---- the interpreter --------------------------------------------------------------

  void symbolicShapesAreChecked() {
    auto n = Var::make("n");
    auto A = makeBuffer("A", DataType::float32(), {n * n});
    auto shape = evalShape(A, {{"n", 65536}});
    QVERIFY(!shape);
    QCOMPARE(QString::fromStdString(shape.error().code), QString("interp.size-too-large"));
    QCOMPARE(message(shape.error()),
             QString("shape of buffer A: n * n is too large for int32 with n=65536; use smaller sizes"));
    auto fits = evalShape(A, {{"n", 46340}});
    QVERIFY(fits);
    QCOMPARE(fits->front(), std::int64_t{46340} * 46340);
    auto unbound = evalShape(A, {});
    QVERIFY(!unbound);
    QCOMPARE(QString::fromStdString(unbound.error().code), QString("interp.unbound-size"));
  }

  void interpreterMemoryInAllIsLimited() {
    // B[i] = T[i] + 1 with T[i] = A[i] * 2 held in a root alloc_buffer of 1 KiB.
    const DataType f32 = DataType::float32();
    auto A = makeBuffer("A", f32, {intImm(256)});
    auto T = makeBuffer("T", f32, {intImm(256)});
    auto B = makeBuffer("B", f32, {intImm(256)});
    auto i = Var::make("i"), j = Var::make("j"), vi = Var::make("v_i"), vj = Var::make("v_j");
    auto block = [](const std::string& name, const Expr& v, const Expr& loopVar, Stmt body) {
      return BlockRealize::make({loopVar}, {},
                                Block::make(name,
                                            {{v, Range::fromMinExtent(intImm(0), intImm(256)), IterKind::Spatial}}, {},
                                            {}, std::move(body)));
    };
    auto first = For::make(i, intImm(0), intImm(256), ForKind::Serial,
                           block("T", vi, i, BufferStore::make(T, BufferLoad::make(A, {vi}) * floatImm(2), {vi})));
    auto second = For::make(j, intImm(0), intImm(256), ForKind::Serial,
                            block("B", vj, j, BufferStore::make(B, BufferLoad::make(T, {vj}) + floatImm(1), {vj})));
    PrimFunc f;
    f.name = "chain";
    f.params = {A, B};
    f.body = BlockRealize::make({}, {}, Block::make("root", {}, {}, {}, SeqStmt::make({first, second}), {}, {T}));
    std::vector<NDArray> args{NDArray({256}, f32), NDArray({256}, f32)};
    {
      ResourceLimits small;
      small.maxBufferBytes = 3000; // the arguments take 2048 bytes, T 1024 more
      ScopedLimits scoped(small);
      auto ran = interpret(f, args);
      QVERIFY(!ran);
      QCOMPARE(QString::fromStdString(ran.error().code), QString("interp.too-large"));
      QCOMPARE(message(ran.error()), QString("buffer 'T' needs 1024 bytes (1 KiB) while the interpreter already holds "
                                             "2048 bytes (2 KiB), more than the memory limit of 3000 bytes (2.93 KiB) "
                                             "in all, in block \"root\""));
    }
    QVERIFY(interpret(f, args));
  }
};

QTEST_GUILESS_MAIN(TestNpyLimits)
#include "tst_npy_limits.moc"
