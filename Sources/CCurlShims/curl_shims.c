/*
** $Id: curl_shims.c $
** One HTTP request with libcurl's easy interface (see CCurlShims.h).
*/
#include "CCurlShims.h"

#include <stdio.h>
#include <string.h>
#include <curl/curl.h>

static size_t drop_body(char *ptr, size_t size, size_t nmemb, void *userdata) {
    (void)ptr; (void)userdata;
    return size * nmemb;
}

void scanlua_http_request(const char *method, const char *url, const char *const *headers, size_t header_count,
                          const void *body, size_t body_length, long timeout_ms, scanlua_http_response *out) {
    memset(out, 0, sizeof *out);
    static int initialised = 0;
    if (!initialised) { curl_global_init(CURL_GLOBAL_DEFAULT); initialised = 1; }
    CURL *curl = curl_easy_init();
    if (curl == NULL) {
        out->curl_code = CURLE_FAILED_INIT;
        snprintf(out->error, sizeof out->error, "cannot start libcurl");
        return;
    }
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < header_count; i++) list = curl_slist_append(list, headers[i]);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    if (body_length > 0 || strcmp(method, "GET") != 0) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body ? body : "");
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
    }
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_PROXY, "");  /* not $http_proxy: the allow-list names the host we reach */
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, drop_body);
    char error[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    CURLcode code = curl_easy_perform(curl);
    out->curl_code = (int)code;
    if (code == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out->status);
    else snprintf(out->error, sizeof out->error, "%s", error[0] ? error : curl_easy_strerror(code));
    curl_slist_free_all(list);
    curl_easy_cleanup(curl);
}
