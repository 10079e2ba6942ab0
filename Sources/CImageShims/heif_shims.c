/*
** $Id: heif_shims.c $
** HEIF/HEIC/AVIF (libheif 1.15) from memory to 8-bit gray or RGB: the primary
** image, with its rotation, mirror and crop boxes applied by libheif (the
** Exif orientation is informational in HEIF and is not applied again).
*/
#include "pixels.h"

#include <pthread.h>
#include <string.h>
#include <libheif/heif.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void init_heif(void) { heif_init(NULL); }

int scanlua_heif_decode(const void *buf, size_t len, uint64_t max_pixels, unsigned channels,
                        scanlua_gray_image *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    pthread_once(&init_once, init_heif);
    if (len < 12 || len > INT32_MAX || heif_check_filetype((const uint8_t *)buf, (int)len) != heif_filetype_yes_supported) {
        snprintf(err, errlen, "not a HEIF/AVIF image libheif supports");
        return SCANLUA_IMAGE_CORRUPT;
    }
    struct heif_context *c = heif_context_alloc();
    if (!c) { snprintf(err, errlen, "out of memory"); return SCANLUA_IMAGE_NOMEM; }
    /* libheif's one limit applies to width and to height alike (a panorama is long on one
    ** side): its own default side, 32768; the product is checked below against max_pixels, from
    ** the image's header, before decoding. */
    heif_context_set_maximum_image_size_limit(c, 32768);
    struct heif_image_handle *hd = NULL;
    struct heif_image *img = NULL;
    int status = SCANLUA_IMAGE_CORRUPT;
    struct heif_error e = heif_context_read_from_memory_without_copy(c, buf, len, NULL);
    if (e.code == heif_error_Ok) e = heif_context_get_primary_image_handle(c, &hd);
    if (e.code != heif_error_Ok) {
        if (e.subcode == heif_suberror_Security_limit_exceeded)
            snprintf(err, errlen, "a side over 32768 pixels, libheif's limit (%s)", e.message);
        else snprintf(err, errlen, "%s", e.message);
        goto done;
    }
    int w = heif_image_handle_get_width(hd), h = heif_image_handle_get_height(hd);
    status = scanlua_check_size((uint64_t)(w > 0 ? w : 0), (uint64_t)(h > 0 ? h : 0), max_pixels, out, err, errlen);
    if (status != SCANLUA_IMAGE_OK) goto done;
    status = SCANLUA_IMAGE_CORRUPT;
    e = heif_decode_image(hd, &img, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL);
    if (e.code != heif_error_Ok) { snprintf(err, errlen, "%s", e.message); goto done; }
    int stride = 0;
    const uint8_t *rgb = heif_image_get_plane_readonly(img, heif_channel_interleaved, &stride);
    w = heif_image_get_width(img, heif_channel_interleaved);
    h = heif_image_get_height(img, heif_channel_interleaved);
    if (!rgb || w <= 0 || h <= 0) { snprintf(err, errlen, "libheif gave no pixels"); goto done; }
    status = scanlua_check_size((uint64_t)w, (uint64_t)h, max_pixels, out, err, errlen);
    if (status != SCANLUA_IMAGE_OK) goto done;
    uint8_t *pixels = malloc((size_t)w * h * channels);
    if (!pixels) { snprintf(err, errlen, "out of memory"); status = SCANLUA_IMAGE_NOMEM; goto done; }
    for (int y = 0; y < h; y++) {
        const uint8_t *row = rgb + (size_t)y * stride;
        for (int x = 0; x < w; x++)
            scanlua_put_rgba(pixels + ((size_t)y * w + x) * channels, channels, row[3 * x], row[3 * x + 1], row[3 * x + 2], 255);
    }
    out->pixels = pixels;
    out->width = out->source_width = (uint32_t)w;
    out->height = out->source_height = (uint32_t)h;
    status = SCANLUA_IMAGE_OK;
done:
    if (img) heif_image_release(img);
    if (hd) heif_image_handle_release(hd);
    heif_context_free(c);
    if (status != SCANLUA_IMAGE_OK) {  /* libheif's messages hold newlines: one line */
        for (char *p = err; *p; p++) if (*p == '\n') *p = ' ';
        for (size_t n = strlen(err); n > 0 && err[n - 1] == ' '; n--) err[n - 1] = '\0';
    }
    return status;
}

int scanlua_heif_size(const void *buf, size_t len, uint32_t *width, uint32_t *height) {
    pthread_once(&init_once, init_heif);
    if (len < 12 || len > INT32_MAX || heif_check_filetype((const uint8_t *)buf, (int)len) != heif_filetype_yes_supported) return 0;
    struct heif_context *c = heif_context_alloc();
    if (!c) return 0;
    heif_context_set_maximum_image_size_limit(c, 32768);
    struct heif_image_handle *hd = NULL;
    int ok = 0;
    if (heif_context_read_from_memory_without_copy(c, buf, len, NULL).code == heif_error_Ok
        && heif_context_get_primary_image_handle(c, &hd).code == heif_error_Ok) {
        int w = heif_image_handle_get_width(hd), h = heif_image_handle_get_height(hd);
        if (w > 0 && h > 0) { *width = (uint32_t)w; *height = (uint32_t)h; ok = 1; }
        heif_image_handle_release(hd);
    }
    heif_context_free(c);
    return ok;
}
