/*
 * nb_error: RFC 8040 error bodies (section 7.1),
 *
 *   {"ietf-restconf:errors":{"error":[{"error-type":"protocol",
 *     "error-tag":"invalid-value","error-path":"...",
 *     "error-message":"..."}]}}
 *
 * built with json-c, so a message that quotes user input (a job name
 * with a quote, a path with a backslash) still yields valid JSON.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "northbound/nb_int.h"
#include "planner/lr_utf8.h"

#define NB_ERROR_CONTENT_TYPE "application/yang-data+json"

/* The message, formatted into a malloc'ed string, or NULL. */
static char *
nb_error_format(const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t) n + 1);
    if (s)
        vsnprintf(s, (size_t) n + 1, fmt, ap);
    return s;
}

void
nb_error_v(struct nb_response *resp, const char *type, int status,
           const char *tag, const char *path, const char *fmt, va_list ap)
{
    char *raw = nb_error_format(fmt, ap);
    char *msg = raw ? lr_utf8_dup(raw) : NULL;
    char *cpath = path ? lr_utf8_dup(path) : NULL;
    free(raw);
    json_object *top = json_object_new_object();
    json_object *errors = json_object_new_object();
    json_object *list = json_object_new_array();
    json_object *e = json_object_new_object();

    free(resp->body);
    resp->body = NULL;
    resp->status = status;
    resp->content_type = NB_ERROR_CONTENT_TYPE;
    if (!msg || (path && !cpath) || !top || !errors || !list || !e) {
        json_object_put(e);
        json_object_put(list);
        json_object_put(errors);
        goto cleanup;
    }
    json_object_object_add(e, "error-type", json_object_new_string(type));
    json_object_object_add(e, "error-tag", json_object_new_string(tag));
    if (cpath)
        json_object_object_add(e, "error-path", json_object_new_string(cpath));
    json_object_object_add(e, "error-message", json_object_new_string(msg));
    json_object_array_add(list, e);
    json_object_object_add(errors, "error", list);
    json_object_object_add(top, "ietf-restconf:errors", errors);
    /* Paths are full of '/', which json-c would escape by default. */
    const char *s = json_object_to_json_string_ext(
        top, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    resp->body = s ? strdup(s) : NULL;

cleanup:
    json_object_put(top);
    free(msg);
    free(cpath);
}

/* A handler's refusal is about the data it was given ("application"),
 * except a body it could not parse at all, which RFC 8040 files under
 * "protocol" with malformed-message. */
void
nb_error(struct nb_response *resp, int status, const char *tag,
         const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nb_error_v(resp, strcmp(tag, "malformed-message") ? "application"
                                                      : "protocol",
               status, tag, path, fmt, ap);
    va_end(ap);
}

void
nb_error_protocol(struct nb_response *resp, int status, const char *tag,
                  const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nb_error_v(resp, "protocol", status, tag, path, fmt, ap);
    va_end(ap);
}

/* Adds member 'key' = 'val' (taken) to the first error of the error body
 * in resp; on any failure the body stays as it was. */
static void
nb_error_add(struct nb_response *resp, const char *key, json_object *val)
{
    json_object *top = resp->body ? json_tokener_parse(resp->body) : NULL;
    json_object *errors, *list;
    json_object *e = json_object_object_get_ex(top, "ietf-restconf:errors",
                                               &errors)
                     && json_object_object_get_ex(errors, "error", &list)
                     ? json_object_array_get_idx(list, 0) : NULL;
    if (!e || !val || json_object_object_add(e, key, val)) {
        json_object_put(val);
        json_object_put(top);
        return;
    }
    const char *s = json_object_to_json_string_ext(
        top, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    char *body = s ? strdup(s) : NULL;
    if (body) {
        free(resp->body);
        resp->body = body;
    }
    json_object_put(top);
}

void
nb_error_info(struct nb_response *resp, const char *json)
{
    json_object *info = json ? json_tokener_parse(json) : NULL;
    if (!json_object_is_type(info, json_type_object)) {
        json_object_put(info);
        return;
    }
    nb_error_add(resp, "error-info", info);
}

void
nb_error_app_tag(struct nb_response *resp, const char *app_tag)
{
    nb_error_add(resp, "error-app-tag", json_object_new_string(app_tag));
}
