/*
** $Id: gif_shims.c $
** GIF (giflib 5.2) from memory to 8-bit gray or RGB, frame by frame: frames
** are rectangles drawn on a persistent canvas the size of the logical screen,
** with their transparency and disposal, so frame n is the canvas after n.
** DGifSlurp is not used: it allocates every frame at once.
*/
#include "pixels.h"

#include <string.h>
#include <gif_lib.h>

typedef struct gif_memory { const uint8_t *data; size_t size, pos; } gif_memory;

static int mem_input(GifFileType *g, GifByteType *buf, int n) {
    gif_memory *m = (gif_memory *)g->UserData;
    if (n <= 0 || m->pos >= m->size) return 0;
    size_t k = (size_t)n < m->size - m->pos ? (size_t)n : m->size - m->pos;
    memcpy(buf, m->data + m->pos, k);
    m->pos += k;
    return (int)k;
}

/* Walks the file to frame `want` (or, with want < 0, to the end, counting frames),
** drawing frames on canvas (RGBA, screen-sized) when canvas is not NULL.
** Returns the number of frames walked, or -1 with err set. */
static int walk(GifFileType *g, int want, uint8_t *canvas, uint8_t *previous, int max_frames, char *err, size_t errlen) {
    int sw = g->SWidth, sh = g->SHeight;
    GraphicsControlBlock gcb = { DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR };
    int frames = 0;
    GifPixelType *line = NULL;
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(g, &type) == GIF_ERROR) {
            if (frames > 0) break;  /* a truncated tail after whole frames: keep what was read */
            snprintf(err, errlen, "%s", GifErrorString(g->Error));
            free(line);
            return -1;
        }
        if (type == TERMINATE_RECORD_TYPE) break;
        if (type == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *ext = NULL;
            if (DGifGetExtension(g, &code, &ext) == GIF_ERROR) goto fail;
            if (code == GRAPHICS_EXT_FUNC_CODE && ext && ext[0] >= 4) DGifExtensionToGCB(ext[0], ext + 1, &gcb);
            while (ext) if (DGifGetExtensionNext(g, &ext) == GIF_ERROR) goto fail;
            continue;
        }
        if (type != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(g) == GIF_ERROR) goto fail;
        int fx = g->Image.Left, fy = g->Image.Top, fw = g->Image.Width, fh = g->Image.Height;
        if (fw <= 0 || fh <= 0 || (uint64_t)fw * fh > (uint64_t)sw * sh * 4 + 65536) {
            snprintf(err, errlen, "frame %d is %dx%d on a %dx%d screen", frames, fw, fh, sw, sh);
            free(line);
            return -1;
        }
        if (!canvas) {
            /* Counting: skip the frame's compressed data. */
            int size;
            GifByteType *block;
            if (DGifGetCode(g, &size, &block) == GIF_ERROR) goto fail;
            while (block) if (DGifGetCodeNext(g, &block) == GIF_ERROR) goto fail;
        } else {
            ColorMapObject *map = g->Image.ColorMap ? g->Image.ColorMap : g->SColorMap;
            GifPixelType *grown = realloc(line, (size_t)fw);
            if (!grown) { snprintf(err, errlen, "out of memory"); free(line); return -1; }
            line = grown;
            if (gcb.DisposalMode == DISPOSE_PREVIOUS && previous) memcpy(previous, canvas, (size_t)sw * sh * 4);
            static const int start[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
            int passes = g->Image.Interlace ? 4 : 1;
            for (int pass = 0; pass < passes; pass++) {
                for (int y = passes == 1 ? 0 : start[pass]; y < fh; y += passes == 1 ? 1 : step[pass]) {
                    if (DGifGetLine(g, line, fw) == GIF_ERROR) {
                        if (frames == want) goto done;  /* a truncated last frame: what was drawn stays */
                        goto fail;
                    }
                    int cy = fy + y;
                    if (cy < 0 || cy >= sh) continue;
                    for (int x = 0; x < fw; x++) {
                        int cx = fx + x;
                        if (cx < 0 || cx >= sw || line[x] == gcb.TransparentColor) continue;
                        uint8_t *p = canvas + ((size_t)cy * sw + cx) * 4;
                        if (map && line[x] < map->ColorCount) {
                            GifColorType c = map->Colors[line[x]];
                            p[0] = c.Red; p[1] = c.Green; p[2] = c.Blue;
                        } else { p[0] = p[1] = p[2] = 0; }
                        p[3] = 255;
                    }
                }
            }
            if (frames == want) goto done;
            /* Disposal before the next frame is drawn. */
            if (gcb.DisposalMode == DISPOSE_BACKGROUND) {
                for (int y = fy < 0 ? 0 : fy; y < fy + fh && y < sh; y++)
                    for (int x = fx < 0 ? 0 : fx; x < fx + fw && x < sw; x++) memset(canvas + ((size_t)y * sw + x) * 4, 255, 4);
            } else if (gcb.DisposalMode == DISPOSE_PREVIOUS && previous) {
                memcpy(canvas, previous, (size_t)sw * sh * 4);
            }
        }
        gcb = (GraphicsControlBlock){ DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR };
        if (++frames >= max_frames) break;
    }
    free(line);
    if (frames == 0) { snprintf(err, errlen, "the file holds no image"); return -1; }
    if (want >= 0) { snprintf(err, errlen, "no frame %d (the file has %d)", want, frames); return -1; }
    return frames;
done:
    free(line);
    return want + 1;
fail:
    snprintf(err, errlen, "%s", GifErrorString(g->Error));
    free(line);
    return -1;
}

static GifFileType *open_memory(gif_memory *m, const void *buf, size_t len, char *err, size_t errlen) {
    m->data = (const uint8_t *)buf;
    m->size = len;
    m->pos = 0;
    int code = 0;
    GifFileType *g = DGifOpen(m, mem_input, &code);
    if (!g) snprintf(err, errlen, "%s", GifErrorString(code));
    return g;
}

int scanlua_gif_frames(const void *buf, size_t len, uint32_t max_frames, char *err, size_t errlen) {
    gif_memory m;
    GifFileType *g = open_memory(&m, buf, len, err, errlen);
    if (!g) return -1;
    int n = walk(g, -1, NULL, NULL, (int)max_frames, err, errlen);
    DGifCloseFile(g, NULL);
    return n;
}

int scanlua_gif_decode(const void *buf, size_t len, uint32_t frame, uint64_t max_pixels, unsigned channels,
                       scanlua_gray_image *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    gif_memory m;
    GifFileType *g = open_memory(&m, buf, len, err, errlen);
    if (!g) return SCANLUA_IMAGE_CORRUPT;
    int sw = g->SWidth, sh = g->SHeight;
    int status = scanlua_check_size((uint64_t)(sw > 0 ? sw : 0), (uint64_t)(sh > 0 ? sh : 0), max_pixels, out, err, errlen);
    if (status != SCANLUA_IMAGE_OK) { DGifCloseFile(g, NULL); return status; }
    size_t n = (size_t)sw * sh;
    uint8_t *canvas = malloc(n * 4), *previous = malloc(n * 4);
    uint8_t *pixels = malloc(n * channels);
    if (!canvas || !previous || !pixels) {
        free(canvas); free(previous); free(pixels); DGifCloseFile(g, NULL);
        snprintf(err, errlen, "out of memory");
        return SCANLUA_IMAGE_NOMEM;
    }
    memset(canvas, 255, n * 4);  /* the background: white, as viewers show a transparent one */
    int walked = walk(g, (int)frame, canvas, previous, (int)frame + 1, err, errlen);
    DGifCloseFile(g, NULL);
    free(previous);
    if (walked < 0) { free(canvas); free(pixels); return SCANLUA_IMAGE_CORRUPT; }
    for (size_t i = 0; i < n; i++) scanlua_put_rgba(pixels + i * channels, channels, canvas[4 * i], canvas[4 * i + 1], canvas[4 * i + 2], 255);
    free(canvas);
    out->pixels = pixels;
    out->width = out->source_width = (uint32_t)sw;
    out->height = out->source_height = (uint32_t)sh;
    return SCANLUA_IMAGE_OK;
}
