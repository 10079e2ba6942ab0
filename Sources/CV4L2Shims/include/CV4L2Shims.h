/*
** $Id: CV4L2Shims.h $
** V4L2 cameras: ioctl is variadic and the capture loop juggles mmap'd
** driver buffers, so the whole camera lives in C behind a small interface.
*/
#ifndef CV4L2SHIMS_H
#define CV4L2SHIMS_H

#include <stddef.h>
#include <stdint.h>

/* Status codes of scanlua_camera_open. */
#define SCANLUA_CAM_OK           0
#define SCANLUA_CAM_NO_DEVICE    1  /* ENOENT */
#define SCANLUA_CAM_BUSY         2  /* EBUSY, from open or from starting the stream */
#define SCANLUA_CAM_PERMISSION   3  /* EACCES / EPERM */
#define SCANLUA_CAM_NOT_CAPTURE  4  /* not a V4L2 video capture device */
#define SCANLUA_CAM_FORMAT       5  /* none of GREY, YUYV, MJPG offered; err lists what is */
#define SCANLUA_CAM_IO           6  /* any other failure; err says which call */

typedef struct scanlua_camera scanlua_camera;

/* Opens a capture device, picks GREY, else YUYV, else MJPG at about width x height
** (0 = the driver's current size), maps 4 buffers and starts streaming. */
scanlua_camera *scanlua_camera_open(const char *path, uint32_t width, uint32_t height,
                                    int *status, char *err, size_t errlen);

/* The negotiated format: fourcc ('GREY', 'YUYV', 'MJPG'), size and bytes per line. */
void scanlua_camera_format(const scanlua_camera *c, uint32_t *fourcc, uint32_t *width,
                           uint32_t *height, uint32_t *bytesperline);

/* Waits up to timeout_ms for a frame. 0: data and len point into a driver buffer until
** scanlua_camera_release; *sequence is the driver's frame counter (gaps = dropped frames).
** 1: timeout. -1: error, see err. */
int scanlua_camera_next(scanlua_camera *c, int timeout_ms, const uint8_t **data, size_t *len,
                        uint32_t *sequence, char *err, size_t errlen);

/* Gives the last frame's buffer back to the driver. */
void scanlua_camera_release(scanlua_camera *c);

/* Torch (flash LED in torch mode) on or off. 0: done; -1: the device has no such control. */
int scanlua_camera_torch(scanlua_camera *c, int on, char *err, size_t errlen);

/* 1 when the device has the torch control (V4L2_CID_FLASH_LED_MODE), else 0. */
int scanlua_camera_has_torch(scanlua_camera *c);

void scanlua_camera_close(scanlua_camera *c);

/* One line per capture format for `scanlua devices`: "FOURCC description: WxH WxH ...".
** Returns 0, or a SCANLUA_CAM_* status with err set. */
int scanlua_camera_describe(const char *path, char *card, size_t cardlen, char *out, size_t outlen,
                            char *err, size_t errlen);

#endif
