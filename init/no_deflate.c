// PID 1 never compresses. libelf's elf_compress.o, linked whole because it also holds the
// decompression that reading an ELF may need, calls zlib's compressor for elf_compress();
// zlib's gzwrite.o, linked whole for gzclose() (libbpf reads /proc/config.gz), calls it for
// writing. Neither is ever called here. Defining the compressor's entry points as failures
// keeps zlib's deflate.o and trees.o, about 33 KB, out of the init (scripts/bench-size.sh);
// inflating stays.
// zlib.h is not on the guest's include path (musl's headers only): its types, as declared.
typedef struct z_stream_s* z_streamp;
enum { Z_STREAM_ERROR = -2 };

int deflateInit_(z_streamp strm, int level, const char* version, int stream_size) {
    (void)strm, (void)level, (void)version, (void)stream_size;
    return Z_STREAM_ERROR;
}

int deflateInit2_(z_streamp strm, int level, int method, int window_bits, int mem_level, int strategy,
                  const char* version, int stream_size) {
    (void)strm, (void)level, (void)method, (void)window_bits, (void)mem_level, (void)strategy;
    (void)version, (void)stream_size;
    return Z_STREAM_ERROR;
}

int deflate(z_streamp strm, int flush) {
    (void)strm, (void)flush;
    return Z_STREAM_ERROR;
}

int deflateEnd(z_streamp strm) {
    (void)strm;
    return Z_STREAM_ERROR;
}

int deflateReset(z_streamp strm) {
    (void)strm;
    return Z_STREAM_ERROR;
}

int deflateParams(z_streamp strm, int level, int strategy) {
    (void)strm, (void)level, (void)strategy;
    return Z_STREAM_ERROR;
}
