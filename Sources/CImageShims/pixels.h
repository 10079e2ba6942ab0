/*
** $Id: pixels.h $
** What the decoders of the other formats share: RGBA (straight alpha,
** composited on white) to 8-bit gray or RGB, and the size check.
*/
#ifndef SCANLUA_PIXELS_H
#define SCANLUA_PIXELS_H

#include "CImageShims.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Luma of one RGB pixel (BT.709 weights, as the PNG decoder uses). */
static inline uint8_t scanlua_luma(unsigned r, unsigned g, unsigned b) {
    return (uint8_t)(0.212656 * r + 0.715158 * g + 0.072186 * b + 0.5);
}

/* One pixel of straight RGBA onto white, then to gray or RGB at dst. */
static inline void scanlua_put_rgba(uint8_t *dst, unsigned channels, unsigned r, unsigned g, unsigned b, unsigned a) {
    if (a != 255) {
        r = (r * a + 255 * (255 - a) + 127) / 255;
        g = (g * a + 255 * (255 - a) + 127) / 255;
        b = (b * a + 255 * (255 - a) + 127) / 255;
    }
    if (channels == 3) { dst[0] = (uint8_t)r; dst[1] = (uint8_t)g; dst[2] = (uint8_t)b; }
    else dst[0] = scanlua_luma(r, g, b);
}

/* Refuses w x h over max_pixels (or empty) before anything is allocated. */
static inline int scanlua_check_size(uint64_t w, uint64_t h, uint64_t max_pixels, scanlua_gray_image *out,
                                     char *err, size_t errlen) {
    if (w == 0 || h == 0) {
        snprintf(err, errlen, "the header gives an empty %llux%llu image", (unsigned long long)w, (unsigned long long)h);
        return SCANLUA_IMAGE_CORRUPT;
    }
    if (w > UINT32_MAX || h > UINT32_MAX || w * h > max_pixels) {
        out->width = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
        out->height = h > UINT32_MAX ? UINT32_MAX : (uint32_t)h;
        snprintf(err, errlen, "%llux%llu pixels exceeds the limit of %llu", (unsigned long long)w,
                 (unsigned long long)h, (unsigned long long)max_pixels);
        return SCANLUA_IMAGE_TOO_LARGE;
    }
    return SCANLUA_IMAGE_OK;
}

#endif
