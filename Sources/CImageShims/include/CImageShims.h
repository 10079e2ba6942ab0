/*
** $Id: CImageShims.h $
** What Swift cannot call directly: libjpeg's and libpng's setjmp-based error
** handling (Swift refuses functions that return twice, and libjpeg's default
** error_exit calls exit()). Each decoder keeps its setjmp inside C and returns
** a status plus a message, so no longjmp ever crosses a Swift frame.
*/
#ifndef CIMAGESHIMS_H
#define CIMAGESHIMS_H

#include <stddef.h>
#include <stdint.h>

/* {====================== Image decoding ======================} */

/* Status codes of the decoders. */
#define SCANLUA_IMAGE_OK        0
#define SCANLUA_IMAGE_CORRUPT   1  /* the library rejected the data; see err */
#define SCANLUA_IMAGE_TOO_LARGE 2  /* header dimensions exceed max_pixels */
#define SCANLUA_IMAGE_NOMEM     3  /* the pixel buffer could not be allocated */

/* An 8-bit grayscale (channels 1) or RGB (channels 3, R G B per pixel) image;
** pixels is malloc'd and owned by the caller.
** On SCANLUA_IMAGE_TOO_LARGE, width and height hold the header's claim. */
typedef struct scanlua_gray_image {
    uint8_t *pixels;
    uint32_t width;
    uint32_t height;
    uint32_t source_width;   /* the image's own size, before any reduction */
    uint32_t source_height;
    uint32_t warnings;       /* data the decoder skipped or repaired (libjpeg's warnings) */
    char warning[200];       /* the first of them */
} scanlua_gray_image;

/* Decode a JPEG straight to 8-bit grayscale (channels 1) or RGB (channels 3). Dimensions are checked against
** max_pixels after reading the header and before any pixel allocation.
** reduction 2, 4 or 8 decodes at 1/2, 1/4 or 1/8 size by libjpeg's DCT scaling
** (far less work than decoding full size); 1 is full size. */
int scanlua_jpeg_decode(const void *buf, size_t len, uint64_t max_pixels, unsigned reduction,
                        unsigned channels, scanlua_gray_image *out, char *err, size_t errlen);

/* Decode a PNG (any bit depth, palette, 16-bit) to 8-bit grayscale (channels 1)
** or RGB (channels 3), with alpha composited on white. Same size check as
** scanlua_jpeg_decode. */
int scanlua_png_decode(const void *buf, size_t len, uint64_t max_pixels,
                       unsigned channels, scanlua_gray_image *out, char *err, size_t errlen);

/* The other formats, each in its own file and library, with the same status codes and
** size check (before any pixel allocation). source_width and source_height are the
** image's own size where the decoder resampled it (a fax's unequal resolutions). */

/* TIFF (tiff_shims.c, libtiff): the number of pages (directories that are not
** thumbnails, at most max_pages), or -1 with err set. */
int scanlua_tiff_pages(const void *buf, size_t len, uint32_t max_pages, char *err, size_t errlen);
/* TIFF page `page` (0-based), oriented, resampled to square pixels. */
int scanlua_tiff_decode(const void *buf, size_t len, uint32_t page, uint64_t max_pixels, unsigned channels,
                        scanlua_gray_image *out, char *err, size_t errlen);
/* WebP (webp_shims.c, libwebp): a still image or an animation's first frame. */
int scanlua_webp_decode(const void *buf, size_t len, uint64_t max_pixels, unsigned channels,
                        scanlua_gray_image *out, char *err, size_t errlen);
/* HEIF/HEIC/AVIF (heif_shims.c, libheif): the primary image, transformations applied. */
int scanlua_heif_decode(const void *buf, size_t len, uint64_t max_pixels, unsigned channels,
                        scanlua_gray_image *out, char *err, size_t errlen);
/* Sizes from the header, before anything is decoded (1, or 0 when the header does not say): a
** TIFF page's as decoded (oriented, resampled), a WebP's (an animation's canvas), a HEIF's
** primary image's (its transformations applied). */
int scanlua_tiff_size(const void *buf, size_t len, uint32_t page, uint32_t *width, uint32_t *height);
int scanlua_webp_size(const void *buf, size_t len, uint32_t *width, uint32_t *height);
int scanlua_heif_size(const void *buf, size_t len, uint32_t *width, uint32_t *height);
/* GIF (gif_shims.c, giflib): the number of frames (at most max_frames), or -1 with err set. */
int scanlua_gif_frames(const void *buf, size_t len, uint32_t max_frames, char *err, size_t errlen);
/* GIF frame `frame` (0-based): the canvas after it is drawn. */
int scanlua_gif_decode(const void *buf, size_t len, uint32_t frame, uint64_t max_pixels, unsigned channels,
                       scanlua_gray_image *out, char *err, size_t errlen);

/* }============================================================ */

/* {====================== Image encoding ======================} */

/* Encode an 8-bit RGB image (3 bytes per pixel, rows without padding) as a
** baseline JPEG of this quality (1-100). *out is malloc'd (free it) and holds
** *outlen bytes. Returns SCANLUA_IMAGE_OK, or another status with err set. */
int scanlua_jpeg_encode_rgb(const uint8_t *rgb, uint32_t width, uint32_t height, int quality,
                            uint8_t **out, size_t *outlen, char *err, size_t errlen);

/* Encode an 8-bit RGB image as PNG, with the same ownership rules. */
int scanlua_png_encode_rgb(const uint8_t *rgb, uint32_t width, uint32_t height,
                           uint8_t **out, size_t *outlen, char *err, size_t errlen);

/* }============================================================ */

#endif
