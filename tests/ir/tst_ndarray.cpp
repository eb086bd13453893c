// NDArray storage, conversions, deterministic random fill, checksums, and .npy I/O
// (exact numpy header bytes, round trips for every dtype, error diagnostics).
#include "core/ir/ndarray.h"
#include "core/ir/npy.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <fstream>

using namespace loopscape;
using namespace loopscape::ir;

namespace {
std::vector<std::byte> bytesOf(const std::string& s) {
  std::vector<std::byte> out;
  for (char c : s) out.push_back(static_cast<std::byte>(c));
  return out;
}
std::string stringOf(const std::vector<std::byte>& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}
} // namespace

class TestNDArray : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void storageIsSharedAlignedAndZeroed() {
    NDArray a({2, 3}, DataType::float32());
    QCOMPARE(a.numel(), std::int64_t{6});
    QCOMPARE(a.nbytes(), std::size_t{24});
    QCOMPARE(reinterpret_cast<std::uintptr_t>(a.rawData()) % 64, std::uintptr_t{0});
    for (std::int64_t i = 0; i < 6; ++i) QCOMPARE(a.getDouble(i), 0.0);
    NDArray shared = a;
    shared.setDouble(4, 2.5);
    QCOMPARE(a.data<float>()[4], 2.5f);
    NDArray deep = a.clone();
    deep.setDouble(4, 7);
    QCOMPARE(a.getDouble(4), 2.5);
    QVERIFY(shared.sameStorage(a));
    QVERIFY(!deep.sameStorage(a));
    NDArray scalar({}, DataType::int64());
    QCOMPARE(scalar.numel(), std::int64_t{1});
    QCOMPARE(a.describe(), std::string("float32(2, 3)"));
  }

  void conversions_data() {
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<double>("in");
    QTest::addColumn<double>("out");
    QTest::addColumn<qlonglong>("asInt");
    QTest::newRow("int8 wraps") << "int8" << 200.0 << -56.0 << 56LL * -1;
    QTest::newRow("int8 truncates") << "int8" << -3.9 << -3.0 << -3LL;
    QTest::newRow("uint8 wraps") << "uint8" << 257.0 << 1.0 << 1LL;
    QTest::newRow("bool") << "bool" << 0.25 << 1.0 << 1LL;
    QTest::newRow("int32") << "int32" << 2147483648.0 << -2147483648.0 << -2147483648LL;
    QTest::newRow("float16 rounds") << "float16" << 1.0009765625 + 0.0002 << 1.0009765625 << 1LL;
    QTest::newRow("float32 rounds") << "float32" << 0.1 << static_cast<double>(0.1f) << 0LL;
    QTest::newRow("float64") << "float64" << -0.1 << -0.1 << 0LL;
  }
  void conversions() {
    QFETCH(QString, dtype);
    QFETCH(double, in);
    QFETCH(double, out);
    QFETCH(qlonglong, asInt);
    NDArray a({1}, *DataType::parse(dtype.toStdString()));
    a.setDouble(0, in);
    QCOMPARE(a.getDouble(0), out);
    QCOMPARE(a.getInt(0), static_cast<std::int64_t>(asInt));
  }

  void fillRandomIsFixed() {
    NDArray f({4}, DataType::float32());
    f.fillRandom(42);
    QCOMPARE(f.data<float>()[0], 0.48312973976135254f);
    QCOMPARE(f.data<float>()[1], -0.680179238319397f);
    QCOMPARE(f.data<float>()[2], -0.44279778003692627f);
    QCOMPARE(f.data<float>()[3], -0.3116186857223511f);
    NDArray d({2}, DataType::float64());
    d.fillRandom(42);
    QCOMPARE(d.data<double>()[0], 0.4831297575436466);
    QCOMPARE(d.data<double>()[1], -0.6801792142461598);
    NDArray i({4}, DataType::int32());
    i.fillRandom(42);
    QCOMPARE(std::vector<int>(i.data<int>(), i.data<int>() + 4), (std::vector<int>{5, 2, -2, -3}));
    NDArray u({4}, DataType::uint8());
    u.fillRandom(42);
    QCOMPARE(std::vector<int>(u.data<std::uint8_t>(), u.data<std::uint8_t>() + 4), (std::vector<int>{13, 10, 6, 5}));
    NDArray b({4}, DataType::boolean());
    b.fillRandom(42);
    QCOMPARE(b.getInt(0) * 1000 + b.getInt(1) * 100 + b.getInt(2) * 10 + b.getInt(3), std::int64_t{1000});
    // Ranges and reproducibility over many elements.
    NDArray big({10000}, DataType::float16());
    big.fillRandom(7);
    for (std::int64_t k = 0; k < big.numel(); ++k) QVERIFY(big.getDouble(k) >= -1.0 && big.getDouble(k) < 1.0);
    NDArray again({10000}, DataType::float16());
    again.fillRandom(7);
    QCOMPARE(again.checksum(), big.checksum());
    NDArray ints({10000}, DataType::int8());
    ints.fillRandom(3);
    std::int64_t lo = 100, hi = -100;
    for (std::int64_t k = 0; k < ints.numel(); ++k) {
      lo = std::min(lo, ints.getInt(k));
      hi = std::max(hi, ints.getInt(k));
    }
    QCOMPARE(lo, std::int64_t{-8});
    QCOMPARE(hi, std::int64_t{8});
  }

  void checksum() {
    NDArray a({3}, DataType::float32());
    a.setDouble(0, 1.5);
    a.setDouble(1, -2);
    a.setDouble(2, 0.5);
    auto c = a.checksum();
    QCOMPARE(c.sum, 0.0);
    QCOMPARE(c.absSum, 4.0);
    // FNV-1a over 00 00 c0 3f 00 00 00 c0 00 00 00 3f.
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char byte : {0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x00, 0x3f}) {
      h ^= byte;
      h *= 0x100000001b3ull;
    }
    QCOMPARE(c.hash, h);
    QCOMPARE(QString::fromStdString(c.str()), QString("sum=0 abs=4 fnv1a=%1").arg(h, 16, 16, QChar('0')));
    NDArray swapped = a.clone();
    swapped.setDouble(0, 0.5);
    swapped.setDouble(2, 1.5);
    QCOMPARE(swapped.checksum().sum, c.sum);
    QVERIFY(swapped.checksum().hash != c.hash);
  }

  void mismatch() {
    NDArray a({4}, DataType::float32()), b({4}, DataType::float32());
    for (int k = 0; k < 4; ++k) {
      a.setDouble(k, k);
      b.setDouble(k, k);
    }
    QVERIFY(!firstMismatch(a, b, 0, 0));
    QCOMPARE(maxAbsDiff(a, b), 0.0);
    a.setDouble(2, 2.001);
    a.setDouble(3, 3.5);
    QVERIFY(firstMismatch(a, b, 1e-2, 0) .has_value());
    auto m = firstMismatch(a, b, 1e-2, 0);
    QCOMPARE(m->index, std::int64_t{3});
    QCOMPARE(m->expected, 3.0);
    QCOMPARE(m->actual, 3.5);
    m = firstMismatch(a, b, 0, 1e-5);
    QCOMPARE(m->index, std::int64_t{2});
    QVERIFY(!firstMismatch(a, b, 0, 0.2));
    QCOMPARE(maxAbsDiff(a, b), 0.5);
  }

  void npyHeaderIsNumpys() {
    NDArray a({2, 3}, DataType::float32());
    auto bytes = encodeNpy(a);
    std::string header = std::string("\x93NUMPY\x01\x00", 8) + std::string("\x76\x00", 2) +
                         "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" + std::string(58, ' ') + "\n";
    QCOMPARE(bytes.size(), std::size_t{128 + 24});
    QCOMPARE(stringOf(bytes).substr(0, 128), header);
  }

  void npyGoldenFromNumpy() {
    // numpy.save(f, numpy.array([1, 2, -3], dtype='<i2')) with numpy 1.26 / 2.x.
    std::string golden = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                         "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }" + std::string(60, ' ') + "\n" +
                         std::string("\x01\x00\x02\x00\xfd\xff", 6);
    auto parsed = parseNpy(bytesOf(golden), "golden.npy");
    QVERIFY2(parsed.has_value(), parsed ? "" : parsed.error().message.c_str());
    QCOMPARE(parsed->dtype(), DataType::int16());
    QCOMPARE(parsed->shape(), (std::vector<std::int64_t>{3}));
    QCOMPARE(parsed->getInt(2), std::int64_t{-3});
    QCOMPARE(stringOf(encodeNpy(*parsed)), golden);
    // A 0-d bool scalar, numpy.save(f, numpy.bool_(True)).
    std::string scalar = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                         "{'descr': '|b1', 'fortran_order': False, 'shape': (), }" + std::string(62, ' ') + "\n" +
                         std::string("\x01", 1);
    auto s = parseNpy(bytesOf(scalar), "scalar.npy");
    QVERIFY(s.has_value());
    QCOMPARE(s->shape(), std::vector<std::int64_t>{});
    QCOMPARE(s->getInt(0), std::int64_t{1});
    QCOMPARE(stringOf(encodeNpy(*s)), scalar);
  }

  void npyRoundTrip_data() {
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<QString>("descr");
    for (auto [t, d] : {std::pair{"bool", "|b1"}, {"int8", "<i1"}, {"int16", "<i2"}, {"int32", "<i4"},
                        {"int64", "<i8"}, {"uint8", "|u1"}, {"float16", "<f2"}, {"float32", "<f4"},
                        {"float64", "<f8"}})
      QTest::newRow(t) << t << d;
  }
  void npyRoundTrip() {
    QFETCH(QString, dtype);
    QFETCH(QString, descr);
    QTemporaryDir dir;
    auto path = dir.filePath("a.npy").toStdString();
    NDArray a({3, 5, 2}, *DataType::parse(dtype.toStdString()));
    a.fillRandom(11);
    QCOMPARE(QString::fromStdString(npyDescr(a.dtype())), descr);
    QVERIFY(saveNpy(path, a).has_value());
    auto b = loadNpy(path);
    QVERIFY2(b.has_value(), b ? "" : b.error().message.c_str());
    QCOMPARE(b->dtype(), a.dtype());
    QCOMPARE(b->shape(), a.shape());
    QVERIFY(std::memcmp(a.rawData(), b->rawData(), a.nbytes()) == 0);
    QCOMPARE(b->checksum(), a.checksum());
  }

  void npyAcceptsVersion2AndPipeI1() {
    std::string h = "{'descr': '|i1', 'fortran_order': False, 'shape': (2,), }";
    std::string file = std::string("\x93NUMPY\x02\x00", 8);
    std::uint32_t len = static_cast<std::uint32_t>(h.size() + 1);
    for (int k = 0; k < 4; ++k) file += static_cast<char>((len >> (8 * k)) & 0xff);
    file += h + "\n" + std::string("\x05\xfe", 2);
    auto a = parseNpy(bytesOf(file), "v2.npy");
    QVERIFY2(a.has_value(), a ? "" : a.error().message.c_str());
    QCOMPARE(a->getInt(1), std::int64_t{-2});
  }

  void npyErrors_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");
    auto npy = [](const std::string& dict, const std::string& data) {
      std::string h = dict;
      std::size_t pad = 64 - (10 + h.size() + 1) % 64;
      h += std::string(pad, ' ') + "\n";
      std::string s = std::string("\x93NUMPY\x01\x00", 8);
      s += static_cast<char>(h.size() & 0xff);
      s += static_cast<char>(h.size() >> 8);
      return QByteArray::fromStdString(s + h + data);
    };
    QTest::newRow("bad magic") << QByteArray("PK\x03\x04 not numpy") << "npy.bad-magic"
                               << "'bad.npy': not a .npy file (missing \\x93NUMPY magic)";
    QTest::newRow("fortran") << npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", std::string(16, 'x'))
                             << "npy.fortran-order"
                             << "'bad.npy': Fortran-ordered (column-major) arrays are not supported; save with C order";
    QTest::newRow("truncated") << npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", std::string(20, 'x'))
                               << "npy.truncated"
                               << "'bad.npy': data is truncated: expected 24 bytes for float32(2, 3), found 20";
    QTest::newRow("big endian") << npy("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, 'x'))
                                << "npy.unsupported-dtype"
                                << "'bad.npy': unsupported dtype '>f4' (supported: <f2 <f4 <f8 <i1 <i2 <i4 <i8 |u1 |b1)";
    QTest::newRow("complex") << npy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", std::string(8, 'x'))
                             << "npy.unsupported-dtype"
                             << "'bad.npy': unsupported dtype '<c8' (supported: <f2 <f4 <f8 <i1 <i2 <i4 <i8 |u1 |b1)";
    QTest::newRow("header cut") << QByteArray("\x93NUMPY\x01\x00\x76\x00{'descr'", 17) << "npy.truncated"
                                << "'bad.npy': header of 118 bytes but only 7 bytes follow";
  }
  void npyErrors() {
    QFETCH(QByteArray, content);
    QFETCH(QString, code);
    QFETCH(QString, message);
    QTemporaryDir dir;
    auto path = dir.filePath("bad.npy").toStdString();
    {
      std::ofstream out(path, std::ios::binary);
      out.write(content.constData(), content.size());
    }
    auto r = loadNpy(path);
    QVERIFY(!r.has_value());
    QCOMPARE(QString::fromStdString(r.error().code), code);
    QCOMPARE(QString::fromStdString(r.error().message), message.replace("'bad.npy'", "'" + QString::fromStdString(path) + "'"));
  }

  void npyMissingFile() {
    auto r = loadNpy("/nonexistent/dir/x.npy");
    QVERIFY(!r.has_value());
    QCOMPARE(QString::fromStdString(r.error().code), QString("npy.open-failed"));
    QCOMPARE(QString::fromStdString(r.error().message),
             QString("'/nonexistent/dir/x.npy': cannot open: No such file or directory"));
    auto w = saveNpy("/nonexistent/dir/x.npy", NDArray({1}, DataType::int8()));
    QVERIFY(!w.has_value());
    QCOMPARE(QString::fromStdString(w.error().code), QString("npy.write-failed"));
  }
};

QTEST_GUILESS_MAIN(TestNDArray)
#include "tst_ndarray.moc"
