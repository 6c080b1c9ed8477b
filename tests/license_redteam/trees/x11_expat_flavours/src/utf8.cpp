#include <cstddef>
#include <cstdint>

// Encode a Unicode code point as UTF-8; returns the number of bytes written
// (0 for invalid code points). `buf` must hold at least 4 bytes.
size_t xkbmini_utf32_to_utf8(uint32_t cp, char *buf)
{
    if (cp < 0x80) {
        buf[0] = static_cast<char>(cp);
        return 1;
    }
    if (cp < 0x800) {
        buf[0] = static_cast<char>(0xc0 | (cp >> 6));
        buf[1] = static_cast<char>(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp >= 0xd800 && cp <= 0xdfff)
        return 0;
    if (cp < 0x10000) {
        buf[0] = static_cast<char>(0xe0 | (cp >> 12));
        buf[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        buf[2] = static_cast<char>(0x80 | (cp & 0x3f));
        return 3;
    }
    if (cp < 0x110000) {
        buf[0] = static_cast<char>(0xf0 | (cp >> 18));
        buf[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        buf[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        buf[3] = static_cast<char>(0x80 | (cp & 0x3f));
        return 4;
    }
    return 0;
}
