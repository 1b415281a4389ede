#include "host/boot/decompress.h"

#include <algorithm>
#include <bzlib.h>
#include <climits>
#include <cstring>
#include <lz4.h>
#include <lzma.h>
#include <lzo/lzo1x.h>
#include <memory>
#include <string>
#include <zlib.h>
#include <zstd.h>

namespace initbench {
namespace {

// The decoders' own memory (dictionaries), apart from the output.
constexpr std::uint64_t kDecoderMemory = 256ull << 20;
// A chunk handed to a decoder fits its 32-bit length fields.
constexpr std::size_t kChunk = 64u << 20;

// The output, grown by doubling and never past the limit.
class Sink {
public:
    explicit Sink(std::size_t limit) : limit_(limit) {}
    // Free space to decode into; empty once the limit is reached.
    std::span<std::uint8_t> room() {
        if (used_ == buf_.size() && buf_.size() < limit_)
            buf_.resize(std::min(limit_, std::max<std::size_t>(buf_.size() * 2, 1u << 20)));
        return std::span(buf_).subspan(used_, std::min(kChunk, buf_.size() - used_));
    }
    void commit(std::size_t n) { used_ += n; }
    std::size_t size() const { return used_; }
    Bytes take() {
        buf_.resize(used_);
        return std::move(buf_);
    }

private:
    Bytes buf_;
    std::size_t used_ = 0;
    std::size_t limit_;
};

Error too_big(const char* format, std::size_t limit) {
    return Error{std::string(format) + ": output exceeds the limit of " + std::to_string(limit) + " bytes"};
}

Error cut_short(const char* format) {
    return Error{std::string(format) + ": the stream ends before its end marker (truncated)"};
}

// What each library's return codes mean, named so that a message says why, with the code.
struct CodeMeaning {
    int code;
    const char* meaning;
};

std::string reason(const char* library, int rc, std::initializer_list<CodeMeaning> known, const char* otherwise) {
    const char* meaning = otherwise;
    for (const auto& k : known)
        if (k.code == rc)
            meaning = k.meaning;
    return std::string(meaning) + " (" + library + " " + std::to_string(rc) + ")";
}

std::string zlib_reason(int rc) { return reason("zlib", rc, {}, zError(rc)); }

std::string bzip2_reason(int rc) {
    return reason("libbz2", rc,
                  {{BZ_DATA_ERROR, "the data is corrupt"},
                   {BZ_DATA_ERROR_MAGIC, "not bzip2 data"},
                   {BZ_MEM_ERROR, "out of memory"},
                   {BZ_PARAM_ERROR, "bad parameters"},
                   {BZ_CONFIG_ERROR, "libbz2 is miscompiled"}},
                  "unexpected error");
}

std::string lzma_reason(lzma_ret rc) {
    return reason("liblzma", int(rc),
                  {{LZMA_DATA_ERROR, "the data is corrupt"},
                   {LZMA_FORMAT_ERROR, "not in this format"},
                   {LZMA_OPTIONS_ERROR, "options this liblzma does not support"},
                   {LZMA_UNSUPPORTED_CHECK, "an integrity check this liblzma cannot verify"},
                   {LZMA_MEM_ERROR, "out of memory"},
                   {LZMA_MEMLIMIT_ERROR, "needs more than the decoder's memory limit"},
                   {LZMA_PROG_ERROR, "liblzma was called wrongly"}},
                  "unexpected error");
}

std::string lzo_reason(int rc) {
    return reason("liblzo2", rc,
                  {{LZO_E_INPUT_OVERRUN, "the compressed block ends early"},
                   {LZO_E_OUTPUT_OVERRUN, "the block decodes to more than its length"},
                   {LZO_E_LOOKBEHIND_OVERRUN, "the data is corrupt (a match before the start)"},
                   {LZO_E_INPUT_NOT_CONSUMED, "the block decodes to less than its length"}},
                  "the data is corrupt");
}

std::uint32_t be32(const std::uint8_t* p) {
    return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}

std::uint32_t le32(const std::uint8_t* p) {
    return std::uint32_t(p[3]) << 24 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[1]) << 8 | p[0];
}

bool starts_with(std::span<const std::uint8_t> data, std::initializer_list<std::uint8_t> magic) {
    return data.size() >= magic.size() && std::equal(magic.begin(), magic.end(), data.begin());
}

Result<Bytes> gunzip(std::span<const std::uint8_t> in, std::size_t limit) {
    z_stream s{};
    if (int rc = inflateInit2(&s, 16 + MAX_WBITS); rc != Z_OK) // 16: gzip wrapper only
        return Error{"gzip: cannot start zlib's decoder: " + zlib_reason(rc)};
    std::unique_ptr<z_stream, int (*)(z_stream*)> end(&s, inflateEnd);
    s.next_in = const_cast<Bytef*>(in.data());
    s.avail_in = static_cast<uInt>(in.size());
    Sink out(limit);
    for (;;) {
        auto room = out.room();
        if (room.empty())
            return too_big("gzip", limit);
        s.next_out = room.data();
        s.avail_out = static_cast<uInt>(room.size());
        int rc = inflate(&s, Z_NO_FLUSH);
        out.commit(room.size() - s.avail_out);
        if (rc == Z_STREAM_END)
            return out.take();
        if (rc == Z_BUF_ERROR && s.avail_in == 0)
            return cut_short("gzip");
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return Error{"gzip: " + (s.msg ? reason("zlib", rc, {}, s.msg) : zlib_reason(rc))};
    }
}

Result<Bytes> bunzip2(std::span<const std::uint8_t> in, std::size_t limit) {
    bz_stream s{};
    if (int rc = BZ2_bzDecompressInit(&s, 0, 0); rc != BZ_OK)
        return Error{"bzip2: cannot start libbz2's decoder: " + bzip2_reason(rc)};
    std::unique_ptr<bz_stream, int (*)(bz_stream*)> end(&s, BZ2_bzDecompressEnd);
    s.next_in = const_cast<char*>(reinterpret_cast<const char*>(in.data()));
    s.avail_in = static_cast<unsigned>(in.size());
    Sink out(limit);
    for (;;) {
        auto room = out.room();
        if (room.empty())
            return too_big("bzip2", limit);
        s.next_out = reinterpret_cast<char*>(room.data());
        s.avail_out = static_cast<unsigned>(room.size());
        int rc = BZ2_bzDecompress(&s);
        std::size_t made = room.size() - s.avail_out;
        out.commit(made);
        if (rc == BZ_STREAM_END)
            return out.take();
        if (rc != BZ_OK)
            return Error{"bzip2: " + bzip2_reason(rc)};
        if (s.avail_in == 0 && made == 0)
            return cut_short("bzip2");
    }
}

// xz and the older .lzma ("alone") format share liblzma's loop.
Result<Bytes> run_lzma(lzma_stream& s, const char* format, std::span<const std::uint8_t> in, std::size_t limit) {
    std::unique_ptr<lzma_stream, void (*)(lzma_stream*)> end(&s, lzma_end);
    s.next_in = in.data();
    s.avail_in = in.size();
    Sink out(limit);
    for (;;) {
        auto room = out.room();
        if (room.empty())
            return too_big(format, limit);
        s.next_out = room.data();
        s.avail_out = room.size();
        // LZMA_RUN, not FINISH: the appended size follows the stream and must not be read
        // as a second one.
        lzma_ret rc = lzma_code(&s, LZMA_RUN);
        out.commit(room.size() - s.avail_out);
        if (rc == LZMA_STREAM_END)
            return out.take();
        if (rc == LZMA_BUF_ERROR) // no progress: the input ran out
            return cut_short(format);
        if (rc != LZMA_OK)
            return Error{std::string(format) + ": " + lzma_reason(rc)};
    }
}

Result<Bytes> unlzma(std::span<const std::uint8_t> in, std::size_t limit) {
    lzma_stream s = LZMA_STREAM_INIT;
    if (lzma_ret rc = lzma_alone_decoder(&s, kDecoderMemory); rc != LZMA_OK)
        return Error{"lzma: cannot start liblzma's decoder: " + lzma_reason(rc)};
    return run_lzma(s, "lzma", in, limit);
}

Result<Bytes> unxz(std::span<const std::uint8_t> in, std::size_t limit) {
    lzma_stream s = LZMA_STREAM_INIT;
    // No LZMA_CONCATENATED: decoding stops at the end of the first stream.
    if (lzma_ret rc = lzma_stream_decoder(&s, kDecoderMemory, 0); rc != LZMA_OK)
        return Error{"xz: cannot start liblzma's decoder: " + lzma_reason(rc)};
    return run_lzma(s, "xz", in, limit);
}

// Reads big-endian fields of lzop's container, failing once past the end.
class BeReader {
public:
    explicit BeReader(std::span<const std::uint8_t> in) : in_(in) {}
    bool u8(std::uint32_t& v) { return take(1) && (v = in_[pos_ - 1], true); }
    bool u16(std::uint32_t& v) { return take(2) && (v = std::uint32_t(in_[pos_ - 2]) << 8 | in_[pos_ - 1], true); }
    bool u32(std::uint32_t& v) { return take(4) && (v = be32(&in_[pos_ - 4]), true); }
    bool bytes(std::size_t n, std::span<const std::uint8_t>& out) {
        if (!take(n))
            return false;
        out = in_.subspan(pos_ - n, n);
        return true;
    }
    std::size_t pos() const { return pos_; }

private:
    bool take(std::size_t n) {
        if (in_.size() - pos_ < n)
            return false;
        pos_ += n;
        return true;
    }
    std::span<const std::uint8_t> in_;
    std::size_t pos_ = 0;
};

// lzop's header flags that change the layout.
constexpr std::uint32_t kLzopAdler32D = 0x1, kLzopAdler32C = 0x2, kLzopExtraField = 0x40,
                        kLzopCrc32D = 0x100, kLzopCrc32C = 0x200, kLzopFilter = 0x800,
                        kLzopHeaderCrc32 = 0x1000;
constexpr std::uint32_t kLzopMaxBlock = 64u << 20; // lzop's own limit

// lzo_init's code, once: it fails only when liblzo2 was built for another ABI.
int lzo_ready() {
    static const int rc = lzo_init();
    return rc;
}

// The header after the 9-byte magic, up to and including its checksum. Returns the flags.
Result<std::uint32_t> lzop_header(BeReader& r, std::span<const std::uint8_t> in) {
    const Error cut{"lzo: the lzop header is cut short"};
    const std::size_t start = r.pos();
    std::uint32_t version, lib_version, needed, method, level, flags, mode, mtime, name_len;
    if (!r.u16(version) || !r.u16(lib_version))
        return cut;
    const bool newer = version >= 0x0940; // these versions added fields
    if ((newer && !r.u16(needed)) || !r.u8(method) || (newer && !r.u8(level)) || !r.u32(flags))
        return cut;
    if (method < 1 || method > 3)
        return Error{"lzo: method " + std::to_string(method) + " is not LZO1X"};
    if (flags & kLzopFilter)
        return Error{"lzo: filtered lzop data is not supported"};
    std::span<const std::uint8_t> name;
    if (!r.u32(mode) || !r.u32(mtime) || (newer && !r.u32(mtime)) || !r.u8(name_len) || !r.bytes(name_len, name))
        return cut;
    const auto header = in.subspan(start, r.pos() - start);
    std::uint32_t sum;
    if (!r.u32(sum))
        return cut;
    const std::uint32_t want = flags & kLzopHeaderCrc32 ? lzo_crc32(0, header.data(), header.size())
                                                        : lzo_adler32(1, header.data(), header.size());
    if (sum != want)
        return Error{"lzo: the lzop header's checksum does not match"};
    if (flags & kLzopExtraField) {
        std::uint32_t len, extra_sum;
        std::span<const std::uint8_t> extra;
        if (!r.u32(len) || !r.bytes(len, extra) || !r.u32(extra_sum))
            return cut;
    }
    return flags;
}

// The kernel's lzo payload is lzop's container: a header, then blocks of at most 256 KiB
// (each stored or LZO1X-compressed, with optional checksums), ended by a zero length.
Result<Bytes> unlzo(std::span<const std::uint8_t> in, std::size_t limit) {
    if (int rc = lzo_ready(); rc != LZO_E_OK)
        return Error{"lzo: cannot start liblzo2: lzo_init returned " + std::to_string(rc) +
                     " (a library built for another ABI)"};
    BeReader r(in);
    std::span<const std::uint8_t> magic;
    r.bytes(9, magic);
    auto header = lzop_header(r, in);
    if (!header)
        return header.error();
    const std::uint32_t flags = header.value();
    const Error cut = cut_short("lzo");
    Bytes out;
    for (;;) {
        std::uint32_t dst_len, src_len, d_adler = 0, d_crc = 0, c_adler = 0, c_crc = 0;
        if (!r.u32(dst_len))
            return cut;
        if (dst_len == 0)
            return out;
        if (!r.u32(src_len))
            return cut;
        if (dst_len > kLzopMaxBlock || src_len > dst_len)
            return Error{"lzo: a block's lengths are impossible (" + std::to_string(src_len) + " -> " +
                         std::to_string(dst_len) + ")"};
        if (out.size() + dst_len > limit)
            return too_big("lzo", limit);
        if (((flags & kLzopAdler32D) && !r.u32(d_adler)) || ((flags & kLzopCrc32D) && !r.u32(d_crc)))
            return cut;
        const bool packed = src_len < dst_len; // a block that would not shrink is stored
        if (packed && (((flags & kLzopAdler32C) && !r.u32(c_adler)) || ((flags & kLzopCrc32C) && !r.u32(c_crc))))
            return cut;
        std::span<const std::uint8_t> src;
        if (!r.bytes(src_len, src))
            return cut;
        const std::size_t at = out.size();
        out.resize(at + dst_len);
        if (packed) {
            lzo_uint made = dst_len;
            int rc = lzo1x_decompress_safe(src.data(), src.size(), out.data() + at, &made, nullptr);
            if (rc != LZO_E_OK)
                return Error{"lzo: a block does not decompress: " + lzo_reason(rc)};
            if (made != dst_len)
                return Error{"lzo: a block decodes to " + std::to_string(made) + " bytes, not its " +
                             std::to_string(dst_len)};
        } else {
            std::memcpy(out.data() + at, src.data(), src.size());
        }
        const std::uint8_t* block = out.data() + at;
        if (((flags & kLzopAdler32D) && lzo_adler32(1, block, dst_len) != d_adler) ||
            ((flags & kLzopCrc32D) && lzo_crc32(0, block, dst_len) != d_crc))
            return Error{"lzo: a block's checksum does not match"};
    }
}

// lz4's legacy frame (`lz4 -l`, what the kernel uses): the magic, then blocks of a 4-byte
// compressed length and data, each decoding to at most 8 MiB. It has no end marker: the
// input's end, or the kernel's appended 4-byte size, ends it.
Result<Bytes> unlz4(std::span<const std::uint8_t> in, std::size_t limit) {
    constexpr std::size_t kBlock = 8u << 20;
    constexpr std::uint32_t kLegacyMagic = 0x184C2102;
    Sink out(limit);
    Bytes block(kBlock);
    std::size_t pos = 4;
    while (in.size() - pos > 4) {
        const std::uint32_t len = le32(&in[pos]);
        pos += 4;
        if (len == kLegacyMagic) // a second legacy stream concatenated: same format
            continue;
        if (len > static_cast<std::uint32_t>(LZ4_compressBound(kBlock)) || len > in.size() - pos)
            return len > in.size() - pos ? cut_short("lz4")
                                         : Error{"lz4: a block of " + std::to_string(len) + " bytes is too long"};
        int made = LZ4_decompress_safe(reinterpret_cast<const char*>(&in[pos]), reinterpret_cast<char*>(block.data()),
                                       static_cast<int>(len), static_cast<int>(kBlock));
        if (made < 0) // liblz4 says only that the block is malformed
            return Error{"lz4: a block of " + std::to_string(len) + " bytes does not decompress: the data "
                         "is corrupt (liblz4 " + std::to_string(made) + ")"};
        if (out.size() + static_cast<std::size_t>(made) > limit)
            return too_big("lz4", limit);
        for (std::size_t done = 0; done < static_cast<std::size_t>(made);) {
            auto room = out.room();
            std::size_t n = std::min(room.size(), made - done);
            std::memcpy(room.data(), block.data() + done, n);
            out.commit(n);
            done += n;
        }
        pos += len;
    }
    if (out.size() == 0)
        return Error{"lz4: no blocks"};
    return out.take();
}

Result<Bytes> unzstd(std::span<const std::uint8_t> in, std::size_t limit) {
    std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!ctx)
        return Error{"zstd: cannot start libzstd's decoder (ZSTD_createDCtx: out of memory)"};
    ZSTD_inBuffer src{in.data(), in.size(), 0};
    Sink out(limit);
    for (;;) {
        auto room = out.room();
        if (room.empty())
            return too_big("zstd", limit);
        ZSTD_outBuffer dst{room.data(), room.size(), 0};
        const std::size_t before = src.pos;
        std::size_t rc = ZSTD_decompressStream(ctx.get(), &dst, &src);
        out.commit(dst.pos);
        if (ZSTD_isError(rc))
            return Error{std::string("zstd: ") + ZSTD_getErrorName(rc)};
        if (rc == 0) // the first frame is complete and flushed
            return out.take();
        if (src.pos == src.size && before == src.pos && dst.pos == 0)
            return cut_short("zstd");
    }
}

} // namespace

const char* compression_name(Compression c) {
    switch (c) {
    case Compression::gzip: return "gzip";
    case Compression::bzip2: return "bzip2";
    case Compression::lzma: return "lzma";
    case Compression::xz: return "xz";
    case Compression::lzo: return "lzo";
    case Compression::lz4: return "lz4";
    case Compression::zstd: return "zstd";
    }
    return "?";
}

std::optional<Compression> identify_compression(std::span<const std::uint8_t> d) {
    if (starts_with(d, {0x1f, 0x8b}))
        return Compression::gzip;
    if (starts_with(d, {'B', 'Z', 'h'}))
        return Compression::bzip2;
    if (starts_with(d, {0x5d, 0x00, 0x00})) // lc/lp/pb 3/0/2, as `lzma` writes them
        return Compression::lzma;
    if (starts_with(d, {0xfd, '7', 'z', 'X', 'Z', 0x00}))
        return Compression::xz;
    if (starts_with(d, {0x89, 'L', 'Z', 'O', 0x00, 0x0d, 0x0a, 0x1a, 0x0a}))
        return Compression::lzo;
    if (starts_with(d, {0x02, 0x21, 0x4c, 0x18}))
        return Compression::lz4;
    if (starts_with(d, {0x28, 0xb5, 0x2f, 0xfd}))
        return Compression::zstd;
    return std::nullopt;
}

Result<Bytes> decompress(Compression c, std::span<const std::uint8_t> in, std::size_t limit) {
    if (in.size() > UINT_MAX) // zlib's and bzip2's input lengths are 32-bit
        return Error{std::string(compression_name(c)) + ": input longer than 4 GiB"};
    switch (c) {
    case Compression::gzip: return gunzip(in, limit);
    case Compression::bzip2: return bunzip2(in, limit);
    case Compression::lzma: return unlzma(in, limit);
    case Compression::xz: return unxz(in, limit);
    case Compression::lzo: return unlzo(in, limit);
    case Compression::lz4: return unlz4(in, limit);
    case Compression::zstd: return unzstd(in, limit);
    }
    return Error{"unknown compression"};
}

} // namespace initbench
