/*
** $Id: image_shims.c $
** setjmp-guarded JPEG and PNG decoders to 8-bit grayscale or RGB, and RGB encoders.
*/
#include "CImageShims.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

/* {====================== JPEG ======================} */

/* libjpeg's default error_exit prints and calls exit(); ours jumps back to
** scanlua_jpeg_decode with the library's message. */
typedef struct jpeg_guard {
    struct jpeg_error_mgr pub;
    jmp_buf env;
    char message[JMSG_LENGTH_MAX];
    int truncated;
    scanlua_gray_image *out;  /* gets the warnings */
} jpeg_guard;

static void jpeg_guard_exit(j_common_ptr cinfo) {
    jpeg_guard *g = (jpeg_guard *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, g->message);
    longjmp(g->env, 1);
}

/* Warnings are not fatal to libjpeg, but a premature end of data is to us:
** libjpeg pads the missing rows with gray and carries on. */
static void jpeg_guard_warn(j_common_ptr cinfo, int level) {
    jpeg_guard *g = (jpeg_guard *)cinfo->err;
    if (level != -1) return;  /* trace messages */
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) { g->truncated = 1; return; }
    /* Other warnings ("Corrupt JPEG data: 94 extraneous bytes before marker 0xd9") leave a
    ** usable image: it is decoded, and the record says what libjpeg had to skip. */
    if (g->out->warnings++ == 0) {
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        snprintf(g->out->warning, sizeof g->out->warning, "%s", text);
    }
}

/* Real encoders write about ten scans (libjpeg's progressive script: 10; mozjpeg's a few more);
** a crafted progressive JPEG of thousands of empty scans takes a minute in one call. Counted
** through libjpeg's progress monitor, as djpeg's -maxscans does. */
#define SCANLUA_JPEG_MAX_SCANS 100

static void jpeg_count_scans(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    int scans = ((j_decompress_ptr)cinfo)->input_scan_number;
    if (scans > SCANLUA_JPEG_MAX_SCANS) {
        jpeg_guard *g = (jpeg_guard *)cinfo->err;
        snprintf(g->message, sizeof g->message, "more than %d progressive scans (real encoders write about ten; refused)",
                 SCANLUA_JPEG_MAX_SCANS);
        longjmp(g->env, 1);
    }
}

int scanlua_jpeg_decode(const void *buf, size_t len, uint64_t max_pixels, unsigned reduction,
                        unsigned channels, scanlua_gray_image *out, char *err, size_t errlen) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress = { .progress_monitor = jpeg_count_scans };
    jpeg_guard guard;
    uint8_t *volatile pixels = NULL;
    uint8_t *volatile line = NULL;  /* one CMYK row, for CMYK/YCCK JPEGs */
    volatile int status = SCANLUA_IMAGE_OK;
    memset(out, 0, sizeof *out);
    cinfo.err = jpeg_std_error(&guard.pub);
    guard.pub.error_exit = jpeg_guard_exit;
    guard.pub.emit_message = jpeg_guard_warn;
    guard.message[0] = '\0';
    guard.truncated = 0;
    guard.out = out;
    if (setjmp(guard.env)) {
        snprintf(err, errlen, "%s", guard.message);
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        free(line);
        return status == SCANLUA_IMAGE_OK ? SCANLUA_IMAGE_CORRUPT : status;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, (const unsigned char *)buf, (unsigned long)len);
    jpeg_read_header(&cinfo, TRUE);
    if ((uint64_t)cinfo.image_width * cinfo.image_height > max_pixels) {
        snprintf(err, errlen, "%ux%u pixels exceeds the limit of %llu",
                 cinfo.image_width, cinfo.image_height, (unsigned long long)max_pixels);
        out->width = cinfo.image_width;
        out->height = cinfo.image_height;
        jpeg_destroy_decompress(&cinfo);
        return SCANLUA_IMAGE_TOO_LARGE;
    }
    /* libjpeg converts YCbCr and RGB to gray itself, but not CMYK or YCCK (print workflows,
    ** Adobe JPEGs): those are read as CMYK and turned to gray below. */
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    int rgb = channels == 3;
    cinfo.out_color_space = cmyk ? JCS_CMYK : rgb ? JCS_RGB : JCS_GRAYSCALE;
    if (reduction == 2 || reduction == 4 || reduction == 8) {
        cinfo.scale_num = 1;
        cinfo.scale_denom = reduction;
    }
    out->source_width = cinfo.image_width;
    out->source_height = cinfo.image_height;
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * (rgb ? 3 : 1);  /* CMYK rows are read into `line` */
    pixels = malloc(stride * cinfo.output_height);
    if (pixels == NULL) {
        snprintf(err, errlen, "out of memory for %ux%u pixels", cinfo.output_width, cinfo.output_height);
        jpeg_destroy_decompress(&cinfo);
        return SCANLUA_IMAGE_NOMEM;
    }
    if (cmyk) {
        line = malloc((size_t)cinfo.output_width * 4);
        if (line == NULL) {
            snprintf(err, errlen, "out of memory for a row of %u pixels", cinfo.output_width);
            jpeg_destroy_decompress(&cinfo);
            free(pixels);
            return SCANLUA_IMAGE_NOMEM;
        }
        /* Adobe writes CMYK JPEGs inverted (the "Adobe" marker): 255 is no ink. Gray is the
        ** light left after the inks: (255 - ink) shades, as ImageMagick's conversion does. */
        int inverted = cinfo.saw_Adobe_marker;
        while (cinfo.output_scanline < cinfo.output_height) {
            size_t y = cinfo.output_scanline;
            JSAMPROW row = (JSAMPROW)line;
            jpeg_read_scanlines(&cinfo, &row, 1);
            for (JDIMENSION x = 0; x < cinfo.output_width; x++) {
                unsigned c = line[4 * x], m = line[4 * x + 1], ye = line[4 * x + 2], k = line[4 * x + 3];
                if (!inverted) { c = 255 - c; m = 255 - m; ye = 255 - ye; k = 255 - k; }
                /* c, m, ye, k are now the light each ink lets through (255 = no ink). */
                unsigned r = c * k / 255, g = m * k / 255, b = ye * k / 255;
                if (rgb) {
                    uint8_t *px = pixels + y * stride + 3 * x;
                    px[0] = (uint8_t)r; px[1] = (uint8_t)g; px[2] = (uint8_t)b;
                } else {
                    pixels[y * stride + x] = (uint8_t)((r * 299 + g * 587 + b * 114) / 1000);
                }
            }
        }
        free(line);
        line = NULL;
    } else {
        while (cinfo.output_scanline < cinfo.output_height) {
            JSAMPROW row = pixels + (size_t)cinfo.output_scanline * stride;
            jpeg_read_scanlines(&cinfo, &row, 1);
        }
    }
    /* Report a truncated file rather than decode half a picture silently. */
    if (guard.truncated) {
        snprintf(err, errlen, "premature end of JPEG data (file truncated)");
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        return SCANLUA_IMAGE_CORRUPT;
    }
    jpeg_finish_decompress(&cinfo);
    out->pixels = pixels;
    out->width = cinfo.output_width;
    out->height = cinfo.output_height;
    out->source_width = cinfo.image_width;
    out->source_height = cinfo.image_height;
    jpeg_destroy_decompress(&cinfo);
    return SCANLUA_IMAGE_OK;
}

/* }================================================== */

/* {====================== PNG ======================} */

/* libpng's simplified API keeps its setjmp internal and reports failures in
** image.message; it expands palettes, low bit depths and 16-bit samples, and
** composites alpha on the background we pass. */
int scanlua_png_decode(const void *buf, size_t len, uint64_t max_pixels,
                       unsigned channels, scanlua_gray_image *out, char *err, size_t errlen) {
    png_image image;
    memset(out, 0, sizeof *out);
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, buf, len)) {
        snprintf(err, errlen, "%s", image.message);
        png_image_free(&image);
        return SCANLUA_IMAGE_CORRUPT;
    }
    if ((uint64_t)image.width * image.height > max_pixels) {
        snprintf(err, errlen, "%ux%u pixels exceeds the limit of %llu",
                 image.width, image.height, (unsigned long long)max_pixels);
        out->width = image.width;
        out->height = image.height;
        png_image_free(&image);
        return SCANLUA_IMAGE_TOO_LARGE;
    }
    /* Color images are read as RGB and turned to gray here, with the weights
    ** ImageMagick's intensity uses (Rec. 709 on the encoded values), so zbar
    ** sees the same pixels as under zbarimg; libpng's own RGB-to-gray works in
    ** linear light and differs by one level, which flips marginal reads. */
    int color = (image.format & PNG_FORMAT_FLAG_COLOR) != 0 || channels == 3;
    image.format = color ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    uint8_t *pixels = malloc(PNG_IMAGE_SIZE(image));
    if (pixels == NULL) {
        snprintf(err, errlen, "out of memory for %ux%u pixels", image.width, image.height);
        png_image_free(&image);
        return SCANLUA_IMAGE_NOMEM;
    }
    png_color white = {255, 255, 255};
    if (!png_image_finish_read(&image, &white, pixels, 0, NULL)) {
        snprintf(err, errlen, "%s", image.message);
        png_image_free(&image);
        free(pixels);
        return SCANLUA_IMAGE_CORRUPT;
    }
    if (color && channels != 3) {
        size_t n = (size_t)image.width * image.height;
        for (size_t i = 0; i < n; i++) {
            const uint8_t *rgb = pixels + 3 * i;
            pixels[i] = (uint8_t)(0.212656 * rgb[0] + 0.715158 * rgb[1] + 0.072186 * rgb[2] + 0.5);
        }
    }
    out->pixels = pixels;
    out->width = image.width;
    out->height = image.height;
    return SCANLUA_IMAGE_OK;
}

/* }================================================= */

/* {====================== Encoders ======================} */

int scanlua_jpeg_encode_rgb(const uint8_t *rgb, uint32_t width, uint32_t height, int quality,
                            uint8_t **out, size_t *outlen, char *err, size_t errlen) {
    struct jpeg_compress_struct cinfo;
    jpeg_guard guard;
    unsigned char *volatile buffer = NULL;
    unsigned long size = 0;
    scanlua_gray_image unused;
    *out = NULL;
    *outlen = 0;
    cinfo.err = jpeg_std_error(&guard.pub);
    guard.pub.error_exit = jpeg_guard_exit;
    guard.pub.emit_message = jpeg_guard_warn;
    guard.message[0] = '\0';
    guard.truncated = 0;
    guard.out = &unused;
    memset(&unused, 0, sizeof unused);
    if (setjmp(guard.env)) {
        snprintf(err, errlen, "%s", guard.message);
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return SCANLUA_IMAGE_CORRUPT;
    }
    jpeg_create_compress(&cinfo);
    /* libjpeg-turbo grows the buffer with malloc/free as it writes; it is ours at the end. */
    jpeg_mem_dest(&cinfo, (unsigned char **)&buffer, &size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)cinfo.next_scanline * width * 3);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *outlen = size;
    return SCANLUA_IMAGE_OK;
}

int scanlua_png_encode_rgb(const uint8_t *rgb, uint32_t width, uint32_t height,
                           uint8_t **out, size_t *outlen, char *err, size_t errlen) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = PNG_FORMAT_RGB;
    *out = NULL;
    *outlen = 0;
    /* The first call only measures; the second writes into a buffer of that size. */
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&image, NULL, &size, 0, rgb, 0, NULL)) {
        snprintf(err, errlen, "%s", image.message);
        png_image_free(&image);
        return SCANLUA_IMAGE_CORRUPT;
    }
    uint8_t *buffer = malloc(size);
    if (buffer == NULL) {
        snprintf(err, errlen, "out of memory for a PNG of %lu bytes", (unsigned long)size);
        return SCANLUA_IMAGE_NOMEM;
    }
    if (!png_image_write_to_memory(&image, buffer, &size, 0, rgb, 0, NULL)) {
        snprintf(err, errlen, "%s", image.message);
        png_image_free(&image);
        free(buffer);
        return SCANLUA_IMAGE_CORRUPT;
    }
    *out = buffer;
    *outlen = size;
    return SCANLUA_IMAGE_OK;
}

/* }===================================================== */
