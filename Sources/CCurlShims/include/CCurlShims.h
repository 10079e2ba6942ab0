/*
** $Id: CCurlShims.h $
** One HTTP request with libcurl: curl_easy_setopt is variadic, which Swift cannot call.
*/
#ifndef SCANLUA_CURL_SHIMS_H
#define SCANLUA_CURL_SHIMS_H

#include <stddef.h>

typedef struct scanlua_http_response {
    long status;        /* the HTTP status, 0 when no response came */
    int curl_code;      /* CURLE_OK (0) or why the transfer failed */
    char error[256];    /* libcurl's message when curl_code != 0 */
} scanlua_http_response;

/* Sends method url with the headers ("Name: value") and body; waits at most timeout_ms.
** http and https only, no redirects followed (a redirect could lead past the allow-list),
** no proxy from the environment. The response body is read and dropped. */
void scanlua_http_request(const char *method, const char *url, const char *const *headers, size_t header_count,
                          const void *body, size_t body_length, long timeout_ms, scanlua_http_response *out);

#endif
