#include "host/base/hash.h"

#include "common/text.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <openssl/evp.h>
#include <stdexcept>

namespace initbench {

std::string sha256_file(const std::string& path) {
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!f)
        throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0)
        EVP_DigestUpdate(ctx.get(), buf, n);
    if (std::ferror(f.get())) // a digest of part of the file is no digest of it
        throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_DigestFinal_ex(ctx.get(), md, &len);
    return to_hex({md, len});
}

} // namespace initbench
