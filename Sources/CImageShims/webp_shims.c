/*
** $Id: webp_shims.c $
** WebP (libwebp 1.2) from memory to 8-bit gray or RGB: a still image, or the
** first frame of an animation (composited on its canvas by the demuxer).
*/
#include "pixels.h"

#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

int scanlua_webp_decode(const void *buf, size_t len, uint64_t max_pixels, unsigned channels,
                        scanlua_gray_image *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    WebPBitstreamFeatures f;
    if (WebPGetFeatures((const uint8_t *)buf, len, &f) != VP8_STATUS_OK) {
        snprintf(err, errlen, "not a readable WebP header");
        return SCANLUA_IMAGE_CORRUPT;
    }
    /* An animation's features give its canvas size. */
    int status = scanlua_check_size((uint64_t)(f.width > 0 ? f.width : 0), (uint64_t)(f.height > 0 ? f.height : 0),
                                    max_pixels, out, err, errlen);
    if (status != SCANLUA_IMAGE_OK) return status;
    uint8_t *rgba = NULL;
    int w = 0, h = 0;
    WebPAnimDecoder *anim = NULL;
    if (!f.has_animation) {
        rgba = WebPDecodeRGBA((const uint8_t *)buf, len, &w, &h);
        if (!rgba) { snprintf(err, errlen, "libwebp cannot decode the image (truncated or corrupt)"); return SCANLUA_IMAGE_CORRUPT; }
    } else {
        WebPData data = { (const uint8_t *)buf, len };
        WebPAnimDecoderOptions o;
        if (!WebPAnimDecoderOptionsInit(&o)) { snprintf(err, errlen, "libwebp version mismatch"); return SCANLUA_IMAGE_CORRUPT; }
        o.color_mode = MODE_RGBA;
        o.use_threads = 0;
        anim = WebPAnimDecoderNew(&data, &o);
        WebPAnimInfo info;
        int ts = 0;
        if (!anim || !WebPAnimDecoderGetInfo(anim, &info) || !WebPAnimDecoderGetNext(anim, &rgba, &ts)) {
            if (anim) WebPAnimDecoderDelete(anim);
            snprintf(err, errlen, "libwebp cannot decode the animation's first frame");
            return SCANLUA_IMAGE_CORRUPT;
        }
        w = (int)info.canvas_width;
        h = (int)info.canvas_height;
    }
    status = scanlua_check_size((uint64_t)w, (uint64_t)h, max_pixels, out, err, errlen);
    uint8_t *pixels = status == SCANLUA_IMAGE_OK ? malloc((size_t)w * h * channels) : NULL;
    if (status == SCANLUA_IMAGE_OK && !pixels) { snprintf(err, errlen, "out of memory"); status = SCANLUA_IMAGE_NOMEM; }
    if (pixels) {
        size_t n = (size_t)w * h;
        for (size_t i = 0; i < n; i++) {
            const uint8_t *p = rgba + 4 * i;
            scanlua_put_rgba(pixels + i * channels, channels, p[0], p[1], p[2], p[3]);
        }
        out->pixels = pixels;
        out->width = out->source_width = (uint32_t)w;
        out->height = out->source_height = (uint32_t)h;
    }
    if (anim) WebPAnimDecoderDelete(anim);  /* owns the frame */
    else WebPFree(rgba);
    return status;
}

int scanlua_webp_size(const void *buf, size_t len, uint32_t *width, uint32_t *height) {
    WebPBitstreamFeatures f;
    if (WebPGetFeatures((const uint8_t *)buf, len, &f) != VP8_STATUS_OK || f.width <= 0 || f.height <= 0) return 0;
    *width = (uint32_t)f.width;
    *height = (uint32_t)f.height;
    return 1;
}
