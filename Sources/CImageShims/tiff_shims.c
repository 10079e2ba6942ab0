/*
** $Id: tiff_shims.c $
** TIFF pages (libtiff 4.5) from memory to 8-bit gray or RGB: every page but
** reduced-resolution thumbnails, any compression libtiff reads (CCITT G3/G4,
** LZW, JPEG, deflate), orientation applied, and unequal X/Y resolutions (a
** standard fax: 204x98 dpi) resampled to square pixels.
*/
#include "pixels.h"

#include <math.h>
#include <pthread.h>
#include <string.h>
#include <tiffio.h>

typedef struct tiff_memory {
    const uint8_t *data;
    uint64_t size;
    uint64_t pos;
    char message[200];   /* libtiff's first error */
} tiff_memory;

static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t n) {
    tiff_memory *m = (tiff_memory *)h;
    if (n < 0 || m->pos >= m->size) return 0;
    uint64_t left = m->size - m->pos;
    uint64_t k = (uint64_t)n < left ? (uint64_t)n : left;
    memcpy(buf, m->data + m->pos, (size_t)k);
    m->pos += k;
    return (tmsize_t)k;
}

static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t n) { (void)h; (void)buf; (void)n; return -1; }

static toff_t mem_seek(thandle_t h, toff_t off, int whence) {
    tiff_memory *m = (tiff_memory *)h;
    uint64_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->size : 0;
    /* Past the end is allowed (reads there give 0 bytes); wrapping is not. */
    if (off > UINT64_MAX - base) return (toff_t)-1;
    m->pos = base + off;
    return m->pos;
}

static int mem_close(thandle_t h) { (void)h; return 0; }
static toff_t mem_size(thandle_t h) { return ((tiff_memory *)h)->size; }
static int mem_map(thandle_t h, void **base, toff_t *size) { (void)h; (void)base; (void)size; return 0; }
static void mem_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

static int on_error(TIFF *t, void *user, const char *module, const char *fmt, va_list ap) {
    (void)t; (void)module;
    tiff_memory *m = (tiff_memory *)user;
    if (m->message[0] == '\0') vsnprintf(m->message, sizeof m->message, fmt, ap);
    return 1;  /* handled: the global handler (stderr) is skipped */
}

static int on_warning(TIFF *t, void *user, const char *module, const char *fmt, va_list ap) {
    (void)t; (void)user; (void)module; (void)fmt; (void)ap;
    return 1;  /* unknown tags and the like: not news */
}

static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;
static void quiet_globals(void) {
    /* Messages that have no TIFF* (before the handle exists) go to the global handlers. */
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

static TIFF *open_memory(tiff_memory *m, const void *buf, size_t len) {
    pthread_once(&quiet_once, quiet_globals);
    memset(m, 0, sizeof *m);
    m->data = (const uint8_t *)buf;
    m->size = len;
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o) return NULL;
    /* One allocation of libtiff's own (a strip, a tag array) stays under 256 MB. */
    TIFFOpenOptionsSetMaxSingleMemAlloc(o, (tmsize_t)256 << 20);
    TIFFOpenOptionsSetErrorHandlerExtR(o, on_error, m);
    TIFFOpenOptionsSetWarningHandlerExtR(o, on_warning, m);
    TIFF *t = TIFFClientOpenExt("memory", "rm", (thandle_t)m, mem_read, mem_write, mem_seek, mem_close,
                                mem_size, mem_map, mem_unmap, o);
    TIFFOpenOptionsFree(o);
    return t;
}

/* A thumbnail (reduced-resolution copy of another page) is not a page. */
static int is_page(TIFF *t) {
    uint32_t sub = 0;
    TIFFGetField(t, TIFFTAG_SUBFILETYPE, &sub);
    return (sub & FILETYPE_REDUCEDIMAGE) == 0;
}

int scanlua_tiff_pages(const void *buf, size_t len, uint32_t max_pages, char *err, size_t errlen) {
    tiff_memory m;
    TIFF *t = open_memory(&m, buf, len);
    if (!t) {
        snprintf(err, errlen, "%s", m.message[0] ? m.message : "not a readable TIFF");
        return -1;
    }
    int pages = 0;
    do {
        if (is_page(t)) pages++;
    } while ((uint32_t)pages < max_pages && TIFFReadDirectory(t));
    TIFFClose(t);
    if (pages == 0) snprintf(err, errlen, "%s", m.message[0] ? m.message : "the file holds no page");
    return pages;
}

int scanlua_tiff_decode(const void *buf, size_t len, uint32_t page, uint64_t max_pixels, unsigned channels,
                        scanlua_gray_image *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    tiff_memory m;
    TIFF *t = open_memory(&m, buf, len);
    if (!t) {
        snprintf(err, errlen, "%s", m.message[0] ? m.message : "not a readable TIFF");
        return SCANLUA_IMAGE_CORRUPT;
    }
    /* The page-th directory that is not a thumbnail. */
    uint32_t seen = 0;
    int found = 0;
    do {
        if (is_page(t) && seen++ == page) { found = 1; break; }
    } while (TIFFReadDirectory(t));
    if (!found) {
        snprintf(err, errlen, "%s", m.message[0] ? m.message : "no such page");
        TIFFClose(t);
        return SCANLUA_IMAGE_CORRUPT;
    }
    uint32_t w = 0, h = 0;
    uint16_t ori = ORIENTATION_TOPLEFT;
    float xr = 0, yr = 0;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(t, TIFFTAG_ORIENTATION, &ori);
    if (ori < 1 || ori > 8) ori = ORIENTATION_TOPLEFT;
    int has_res = TIFFGetField(t, TIFFTAG_XRESOLUTION, &xr) && TIFFGetField(t, TIFFTAG_YRESOLUTION, &yr)
        && xr > 0 && yr > 0 && xr < 1e6 && yr < 1e6;
    int status = scanlua_check_size(w, h, max_pixels, out, err, errlen);
    if (status != SCANLUA_IMAGE_OK) { TIFFClose(t); return status; }
    /* Square pixels: rows (or columns) repeated by the resolutions' ratio, on the stored axes. */
    uint64_t sw = w, sh = h;
    /* (Clamped before the conversion: a double past uint64_t's range is undefined behaviour.) */
    if (has_res && xr > yr * 1.01f) sh = (uint64_t)fmin((double)h * xr / yr + 0.5, 1e12);
    else if (has_res && yr > xr * 1.01f) sw = (uint64_t)fmin((double)w * yr / xr + 0.5, 1e12);
    status = scanlua_check_size(sw, sh, max_pixels, out, err, errlen);
    if (status != SCANLUA_IMAGE_OK) { TIFFClose(t); return status; }
    uint32_t *raster = (uint32_t *)_TIFFmalloc((tmsize_t)((uint64_t)w * h * 4));
    if (!raster) { TIFFClose(t); snprintf(err, errlen, "out of memory"); return SCANLUA_IMAGE_NOMEM; }
    /* Asking for the file's own orientation (1-4, or 5-8 less 4) gives the raster as stored;
    ** the orientation is applied below, since libtiff does not transpose 5-8. */
    if (!TIFFReadRGBAImageOriented(t, w, h, raster, ori > 4 ? ori - 4 : ori, 1)) {
        snprintf(err, errlen, "%s", m.message[0] ? m.message : "cannot decode the page");
        _TIFFfree(raster);
        TIFFClose(t);
        return SCANLUA_IMAGE_CORRUPT;
    }
    TIFFClose(t);
    int swap = ori >= 5;
    uint64_t dw = swap ? sh : sw, dh = swap ? sw : sh;
    uint8_t *pixels = malloc((size_t)(dw * dh * channels));
    if (!pixels) { _TIFFfree(raster); snprintf(err, errlen, "out of memory"); return SCANLUA_IMAGE_NOMEM; }
    for (uint64_t y = 0; y < dh; y++) {
        for (uint64_t x = 0; x < dw; x++) {
            uint64_t px, py;  /* in the stretched stored raster (sw x sh) */
            switch (ori) {
            case 2: px = sw - 1 - x; py = y; break;
            case 3: px = sw - 1 - x; py = sh - 1 - y; break;
            case 4: px = x; py = sh - 1 - y; break;
            case 5: px = y; py = x; break;
            case 6: px = y; py = sh - 1 - x; break;
            case 7: px = sw - 1 - y; py = sh - 1 - x; break;
            case 8: px = sw - 1 - y; py = x; break;
            default: px = x; py = y; break;
            }
            uint32_t p = raster[(py * h / sh) * w + px * w / sw];
            scanlua_put_rgba(pixels + (y * dw + x) * channels, channels, TIFFGetR(p), TIFFGetG(p), TIFFGetB(p), TIFFGetA(p));
        }
    }
    _TIFFfree(raster);
    out->pixels = pixels;
    out->width = (uint32_t)dw;
    out->height = (uint32_t)dh;
    out->source_width = swap ? h : w;
    out->source_height = swap ? w : h;
    return SCANLUA_IMAGE_OK;
}

int scanlua_tiff_size(const void *buf, size_t len, uint32_t page, uint32_t *width, uint32_t *height) {
    tiff_memory m;
    TIFF *t = open_memory(&m, buf, len);
    if (!t) return 0;
    uint32_t seen = 0;
    int found = 0;
    do {
        if (is_page(t) && seen++ == page) { found = 1; break; }
    } while (TIFFReadDirectory(t));
    uint32_t w = 0, h = 0;
    uint16_t ori = ORIENTATION_TOPLEFT;
    float xr = 0, yr = 0;
    if (found) {
        TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
        TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
        TIFFGetFieldDefaulted(t, TIFFTAG_ORIENTATION, &ori);
        /* The decoded page's size: resampled to square pixels as scanlua_tiff_decode does. */
        if (TIFFGetField(t, TIFFTAG_XRESOLUTION, &xr) && TIFFGetField(t, TIFFTAG_YRESOLUTION, &yr) && xr > 0 && yr > 0
            && xr < 1e6 && yr < 1e6) {
            if (xr > yr * 1.01f) h = (uint32_t)fmin((double)h * xr / yr + 0.5, 4e9);
            else if (yr > xr * 1.01f) w = (uint32_t)fmin((double)w * yr / xr + 0.5, 4e9);
        }
    }
    TIFFClose(t);
    *width = ori >= 5 ? h : w;
    *height = ori >= 5 ? w : h;
    return found && w > 0 && h > 0;
}
