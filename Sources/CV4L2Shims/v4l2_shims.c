/*
** $Id: v4l2_shims.c $
** V4L2 capture with mmap streaming, format negotiation and the torch control.
*/
#include "CV4L2Shims.h"

/* Linux only (docs/portability.md): V4L2 is Linux's camera API. Elsewhere this file is empty
** and Camera+C.swift's other branch says cameras are not read. */
#ifdef __linux__

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/videodev2.h>

#define NBUFFERS 4

struct scanlua_camera {
    int fd;
    struct v4l2_format fmt;
    struct { void *start; size_t length; } buffers[NBUFFERS];
    unsigned nbuffers;
    int current;  /* index of the buffer handed out, or -1 */
};

static int xioctl(int fd, unsigned long request, void *arg) {
    int r;
    do r = ioctl(fd, request, arg); while (r == -1 && errno == EINTR);
    return r;
}

static int open_status(int e) {
    switch (e) {
    case ENOENT: case ENODEV: case ENXIO: return SCANLUA_CAM_NO_DEVICE;
    case EBUSY: return SCANLUA_CAM_BUSY;
    case EACCES: case EPERM: return SCANLUA_CAM_PERMISSION;
    default: return SCANLUA_CAM_IO;
    }
}

/* Opens and checks that it is a capture device with streaming. */
static int open_capture(const char *path, struct v4l2_capability *cap, char *err, size_t errlen) {
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s", strerror(e));
        errno = e;
        return -1;
    }
    memset(cap, 0, sizeof *cap);
    if (xioctl(fd, VIDIOC_QUERYCAP, cap) == -1) {
        snprintf(err, errlen, "not a V4L2 device (VIDIOC_QUERYCAP: %s)", strerror(errno));
        close(fd);
        errno = ENOTTY;
        return -2;
    }
    uint32_t caps = (cap->capabilities & V4L2_CAP_DEVICE_CAPS) ? cap->device_caps : cap->capabilities;
    if (!(caps & V4L2_CAP_VIDEO_CAPTURE) || !(caps & V4L2_CAP_STREAMING)) {
        snprintf(err, errlen, "%s is not a video capture device with streaming (a metadata or output node?)", (char *)cap->card);
        close(fd);
        return -2;
    }
    return fd;
}

static void fourcc_text(uint32_t f, char out[5]) {
    out[0] = (char)(f & 0xFF); out[1] = (char)(f >> 8 & 0xFF);
    out[2] = (char)(f >> 16 & 0xFF); out[3] = (char)(f >> 24 & 0xFF); out[4] = 0;
}

scanlua_camera *scanlua_camera_open(const char *path, uint32_t width, uint32_t height,
                                    int *status, char *err, size_t errlen) {
    struct v4l2_capability cap;
    int fd = open_capture(path, &cap, err, errlen);
    if (fd == -1) { *status = open_status(errno); return NULL; }
    if (fd == -2) { *status = SCANLUA_CAM_NOT_CAPTURE; return NULL; }

    /* Pick a pixel format: GREY needs no conversion, YUYV carries luma in every other byte,
    ** MJPG is decoded to gray. List the offered ones for the error message. */
    uint32_t wanted[] = { V4L2_PIX_FMT_GREY, V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_MJPEG };
    uint32_t chosen = 0;
    char offered[256] = "";
    for (int w = 0; w < 3 && !chosen; w++) {
        struct v4l2_fmtdesc d;
        memset(&d, 0, sizeof d);
        d.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        for (d.index = 0; xioctl(fd, VIDIOC_ENUM_FMT, &d) == 0; d.index++) {
            if (w == 0) {
                char t[5]; fourcc_text(d.pixelformat, t);
                size_t n = strlen(offered);
                snprintf(offered + n, sizeof offered - n, "%s%s", n ? ", " : "", t);
            }
            if (d.pixelformat == wanted[w]) { chosen = wanted[w]; break; }
        }
    }
    if (!chosen) {
        snprintf(err, errlen, "none of GREY, YUYV, MJPG is offered (the camera offers: %s)", offered[0] ? offered : "nothing");
        close(fd);
        *status = SCANLUA_CAM_FORMAT;
        return NULL;
    }
    scanlua_camera *c = calloc(1, sizeof *c);
    c->fd = fd;
    c->current = -1;
    c->fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(fd, VIDIOC_G_FMT, &c->fmt) == -1) goto io_error;
    c->fmt.fmt.pix.pixelformat = chosen;
    if (width && height) { c->fmt.fmt.pix.width = width; c->fmt.fmt.pix.height = height; }
    c->fmt.fmt.pix.field = V4L2_FIELD_ANY;
    if (xioctl(fd, VIDIOC_S_FMT, &c->fmt) == -1) {
        *status = errno == EBUSY ? SCANLUA_CAM_BUSY : SCANLUA_CAM_IO;
        snprintf(err, errlen, "VIDIOC_S_FMT: %s", strerror(errno));
        scanlua_camera_close(c);
        return NULL;
    }

    struct v4l2_requestbuffers req;
    memset(&req, 0, sizeof req);
    req.count = NBUFFERS;
    req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    req.memory = V4L2_MEMORY_MMAP;
    if (xioctl(fd, VIDIOC_REQBUFS, &req) == -1) {
        *status = errno == EBUSY ? SCANLUA_CAM_BUSY : SCANLUA_CAM_IO;
        snprintf(err, errlen, "VIDIOC_REQBUFS: %s", strerror(errno));
        scanlua_camera_close(c);
        return NULL;
    }
    c->nbuffers = req.count < NBUFFERS ? req.count : NBUFFERS;
    for (unsigned i = 0; i < c->nbuffers; i++) {
        struct v4l2_buffer b;
        memset(&b, 0, sizeof b);
        b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        b.memory = V4L2_MEMORY_MMAP;
        b.index = i;
        if (xioctl(fd, VIDIOC_QUERYBUF, &b) == -1) goto io_error;
        c->buffers[i].length = b.length;
        c->buffers[i].start = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, b.m.offset);
        if (c->buffers[i].start == MAP_FAILED) { c->buffers[i].start = NULL; goto io_error; }
        if (xioctl(fd, VIDIOC_QBUF, &b) == -1) goto io_error;
    }
    enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(fd, VIDIOC_STREAMON, &type) == -1) {
        *status = errno == EBUSY ? SCANLUA_CAM_BUSY : SCANLUA_CAM_IO;
        snprintf(err, errlen, "VIDIOC_STREAMON: %s", strerror(errno));
        scanlua_camera_close(c);
        return NULL;
    }
    *status = SCANLUA_CAM_OK;
    return c;

io_error:
    *status = SCANLUA_CAM_IO;
    snprintf(err, errlen, "setting up capture buffers: %s", strerror(errno));
    scanlua_camera_close(c);
    return NULL;
}

void scanlua_camera_format(const scanlua_camera *c, uint32_t *fourcc, uint32_t *width,
                           uint32_t *height, uint32_t *bytesperline) {
    *fourcc = c->fmt.fmt.pix.pixelformat;
    *width = c->fmt.fmt.pix.width;
    *height = c->fmt.fmt.pix.height;
    *bytesperline = c->fmt.fmt.pix.bytesperline;
}

int scanlua_camera_next(scanlua_camera *c, int timeout_ms, const uint8_t **data, size_t *len,
                        uint32_t *sequence, char *err, size_t errlen) {
    scanlua_camera_release(c);
    struct pollfd p = { c->fd, POLLIN, 0 };
    int r = poll(&p, 1, timeout_ms);
    if (r == 0 || (r < 0 && errno == EINTR)) return 1;
    if (r < 0) { snprintf(err, errlen, "poll: %s", strerror(errno)); return -1; }
    struct v4l2_buffer b;
    memset(&b, 0, sizeof b);
    b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    b.memory = V4L2_MEMORY_MMAP;
    if (xioctl(c->fd, VIDIOC_DQBUF, &b) == -1) {
        if (errno == EAGAIN) return 1;
        snprintf(err, errlen, "VIDIOC_DQBUF: %s (was the camera unplugged?)", strerror(errno));
        return -1;
    }
    c->current = (int)b.index;
    *data = c->buffers[b.index].start;
    *len = b.bytesused;
    *sequence = b.sequence;
    return 0;
}

void scanlua_camera_release(scanlua_camera *c) {
    if (c->current < 0) return;
    struct v4l2_buffer b;
    memset(&b, 0, sizeof b);
    b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    b.memory = V4L2_MEMORY_MMAP;
    b.index = (unsigned)c->current;
    xioctl(c->fd, VIDIOC_QBUF, &b);
    c->current = -1;
}

int scanlua_camera_torch(scanlua_camera *c, int on, char *err, size_t errlen) {
    struct v4l2_control ctrl = { V4L2_CID_FLASH_LED_MODE, on ? V4L2_FLASH_LED_MODE_TORCH : V4L2_FLASH_LED_MODE_NONE };
    if (xioctl(c->fd, VIDIOC_S_CTRL, &ctrl) == -1) {
        snprintf(err, errlen, "this camera has no torch (V4L2 flash LED) control: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int scanlua_camera_has_torch(scanlua_camera *c) {
    struct v4l2_queryctrl q;
    memset(&q, 0, sizeof q);
    q.id = V4L2_CID_FLASH_LED_MODE;
    return xioctl(c->fd, VIDIOC_QUERYCTRL, &q) == 0 && !(q.flags & V4L2_CTRL_FLAG_DISABLED);
}

void scanlua_camera_close(scanlua_camera *c) {
    if (!c) return;
    if (c->fd >= 0) {
        enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        xioctl(c->fd, VIDIOC_STREAMOFF, &type);
    }
    for (unsigned i = 0; i < NBUFFERS; i++)
        if (c->buffers[i].start) munmap(c->buffers[i].start, c->buffers[i].length);
    if (c->fd >= 0) close(c->fd);
    free(c);
}

int scanlua_camera_describe(const char *path, char *card, size_t cardlen, char *out, size_t outlen,
                            char *err, size_t errlen) {
    struct v4l2_capability cap;
    int fd = open_capture(path, &cap, err, errlen);
    if (fd == -1) return open_status(errno);
    if (fd == -2) return SCANLUA_CAM_NOT_CAPTURE;
    snprintf(card, cardlen, "%s (%s)", (char *)cap.card, (char *)cap.driver);
    out[0] = 0;
    struct v4l2_fmtdesc d;
    memset(&d, 0, sizeof d);
    d.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    for (d.index = 0; xioctl(fd, VIDIOC_ENUM_FMT, &d) == 0; d.index++) {
        char t[5]; fourcc_text(d.pixelformat, t);
        size_t n = strlen(out);
        snprintf(out + n, outlen - n, "%s %s:", t, (char *)d.description);
        struct v4l2_frmsizeenum s;
        memset(&s, 0, sizeof s);
        s.pixel_format = d.pixelformat;
        for (s.index = 0; xioctl(fd, VIDIOC_ENUM_FRAMESIZES, &s) == 0; s.index++) {
            n = strlen(out);
            if (s.type == V4L2_FRMSIZE_TYPE_DISCRETE)
                snprintf(out + n, outlen - n, " %ux%u", s.discrete.width, s.discrete.height);
            else {
                snprintf(out + n, outlen - n, " %ux%u to %ux%u", s.stepwise.min_width, s.stepwise.min_height,
                         s.stepwise.max_width, s.stepwise.max_height);
                break;
            }
        }
        n = strlen(out);
        snprintf(out + n, outlen - n, "\n");
    }
    close(fd);
    return SCANLUA_CAM_OK;
}

#endif /* __linux__ */
