// PID 1 never demangles a name. The one caller in the link, libc++abi's default terminate
// handler, demangles the type of an uncaught exception for its message, and the mangled name
// serves as well there. Defining the function here keeps the linker from pulling libc++abi's
// demangler into the image: about 95 KB, a fourteenth of the init (scripts/bench-size.sh).
#include <stddef.h>

char* __cxa_demangle(const char* mangled, char* buf, size_t* len, int* status) {
    (void)mangled, (void)buf, (void)len;
    if (status)
        *status = -2; // "not a mangled name": the caller prints it as it is
    return NULL;
}
