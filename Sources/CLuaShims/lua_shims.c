/*
** $Id: lua_shims.c $
** Lua 5.4 host helpers: counted allocator, instruction budget, protected
** calls with tracebacks, and the trampoline for Swift functions.
*/
#include "CLuaShims.h"

#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdio.h>

/* {====================== Allocator and hook ======================} */

/* Bytes of C work that cost one instruction of the budget: bytes scanned by a metered library
** function, and bytes allocated (copying is cheaper per byte than a Lua instruction, and a
** memory-hungry handler should meet the memory cap's message rather than the budget's). */
#define BYTES_PER_STEP 32
#define ALLOCATED_BYTES_PER_STEP 256

/* > When ptr is NULL, osize encodes the kind of object that Lua is allocating.
** (Lua 5.4 manual, lua_Alloc): so only count osize when ptr is not NULL. */
static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    scanlua_limits *lim = (scanlua_limits *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        lim->memory_used -= old;
        return NULL;
    }
    if (lim->memory_limit && nsize > old && lim->memory_used + (nsize - old) > lim->memory_limit) {
        lim->memory_refused = 1;
        return NULL;  /* Lua collects garbage and retries once, then raises LUA_ERRMEM */
    }
    void *p = realloc(ptr, nsize);
    if (p == NULL) return NULL;
    lim->memory_used = lim->memory_used - old + nsize;
    /* Work done in C is charged by the bytes it makes: `s = big .. "x"` in a loop is few
    ** instructions but copies megabytes each time. The count hook sees it at its next check. */
    if (lim->armed && nsize > old) lim->instructions += (int64_t)((nsize - old) / ALLOCATED_BYTES_PER_STEP);
    return p;
}

#define HOOK_EVERY 1000

static scanlua_limits *limits_of(lua_State *L) {
    void *ud;
    lua_getallocf(L, &ud);
    return (scanlua_limits *)ud;
}

static void budget_error(lua_State *L, scanlua_limits *lim, int level);

static void count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    scanlua_limits *lim = limits_of(L);
    if (!lim->armed) return;
    lim->instructions += HOOK_EVERY;
    if (lim->instruction_limit && lim->instructions > lim->instruction_limit) {
        /* Inside a hook, level 0 is the running Lua function: name its line. */
        budget_error(L, lim, 0);
    }
}

lua_State *scanlua_newstate(scanlua_limits *limits) {
    return lua_newstate(limited_alloc, limits);
}

/* The count hook is installed on the calling thread only while armed: a count hook puts
** Lua's VM in its slow, trap-checking loop for every instruction, which would tax the
** dispatcher's own code too. Threads created while armed inherit it (lua_newthread copies
** the hook); the sandbox hooks coroutines created at other times (l_hook_thread). */
void scanlua_arm_budget(lua_State *L, int armed) {
    scanlua_limits *lim = limits_of(L);
    lim->instructions = 0;
    lim->tripped = 0;
    lim->armed = armed;
    if (armed) lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_EVERY);
    else lua_sethook(L, NULL, 0, 0);
}

static void budget_error(lua_State *L, scanlua_limits *lim, int level) {
    lim->tripped = 1;
    luaL_where(L, level);
    lua_pushfstring(L, "instruction budget exceeded (%I instructions)", (lua_Integer)lim->instruction_limit);
    lua_concat(L, 2);
    lua_error(L);
}

void scanlua_charge(lua_State *L, int64_t steps) {
    scanlua_limits *lim = limits_of(L);
    if (!lim->armed) return;
    lim->instructions += steps;
    /* Level 1: the Lua code that called the C function doing the work. */
    if (lim->instruction_limit && lim->instructions > lim->instruction_limit) budget_error(L, lim, 1);
}

/* metered(fn, kind) -> a function that calls fn and charges its C work to the budget:
** the bytes of its string arguments and the number of its results, or the length of its table argument
** (kind "table"), times log2 of it for sorting (kind "sort"), or the span it moves ("move").
** Kind "load" wraps load for the sandbox: text chunks only, and env (the third argument of
** metered) when the caller gives none. */
enum { METER_BYTES, METER_TABLE, METER_SORT, METER_MOVE, METER_LOAD, METER_FORMAT, METER_STRFTIME, METER_REP };

static int l_metered_call(lua_State *L) {
    int kind = (int)lua_tointeger(L, lua_upvalueindex(2));
    int n = lua_gettop(L);
    int64_t cost = 1;
    if (kind == METER_LOAD) {
        if (n >= 3 && !lua_isnil(L, 3) && !(lua_type(L, 3) == LUA_TSTRING && strcmp(lua_tostring(L, 3), "t") == 0)) {
            luaL_pushfail(L);
            lua_pushliteral(L, "load: only text chunks are allowed");
            return 2;
        }
        lua_settop(L, n < 4 ? 4 : n);
        n = lua_gettop(L);
        lua_pushliteral(L, "t");
        lua_replace(L, 3);
        if (lua_isnil(L, 4)) { lua_pushvalue(L, lua_upvalueindex(3)); lua_replace(L, 4); }
        kind = METER_BYTES;
    }
    if (kind == METER_BYTES) {
        for (int i = 1; i <= n; i++)
            if (lua_type(L, i) == LUA_TSTRING) cost += (int64_t)(lua_rawlen(L, i) / BYTES_PER_STEP);
    } else if (kind == METER_REP) {
        /* string.rep(s, n, sep) with s and sep empty loops n times making nothing: no allocation
        ** charges it, so its count is charged before it runs (clamped: hostile counts must not
        ** overflow). With bytes to copy, the result's allocation is charged (or refused by the
        ** memory cap, whose message says more). */
        size_t each = (lua_type(L, 1) == LUA_TSTRING ? lua_rawlen(L, 1) : 0) + (lua_type(L, 3) == LUA_TSTRING ? lua_rawlen(L, 3) : 0);
        if (each == 0 && lua_type(L, 2) == LUA_TNUMBER) {
            lua_Number work = lua_tonumber(L, 2) / BYTES_PER_STEP;
            if (work > 0) cost += work > (lua_Number)((int64_t)1 << 60) ? ((int64_t)1 << 60) : (int64_t)work;
        }
    } else if (kind == METER_FORMAT || kind == METER_STRFTIME) {
        /* A format string is work per directive, not a byte scan: string.format's snprintf calls,
        ** strftime's time-zone lookups (measured: about 66 ns per "%Z"). */
        for (int i = 1; i <= n; i++)
            if (lua_type(L, i) == LUA_TSTRING) cost += (int64_t)(lua_rawlen(L, i) / BYTES_PER_STEP);
        if (lua_type(L, 1) == LUA_TSTRING) cost += (int64_t)lua_rawlen(L, 1) * (kind == METER_STRFTIME ? 16 : 1);
    } else if (kind == METER_MOVE) {
        if (lua_isinteger(L, 2) && lua_isinteger(L, 3)) {
            lua_Integer f = lua_tointeger(L, 2), e = lua_tointeger(L, 3);
            if (e > f) {  /* unsigned: hostile bounds must not overflow */
                lua_Unsigned span = (lua_Unsigned)e - (lua_Unsigned)f;
                cost += span > ((lua_Unsigned)1 << 60) ? ((int64_t)1 << 60) : (int64_t)span;
            }
        }
    } else if (lua_type(L, 1) == LUA_TTABLE) {
        int64_t len = (int64_t)lua_rawlen(L, 1);
        cost += len;
        if (kind == METER_SORT) for (int64_t m = len; m > 1; m >>= 1) cost += len;
    }
    scanlua_charge(L, cost);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    int results = lua_gettop(L);  /* strings it made were charged as they were allocated */
    if (results >= 8) scanlua_charge(L, results / 8);
    return results;
}

static int l_metered(lua_State *L) {
    static const char *const kinds[] = {"bytes", "table", "sort", "move", "load", "format", "strftime", "rep", NULL};
    luaL_checktype(L, 1, LUA_TFUNCTION);
    int kind = luaL_checkoption(L, 2, "bytes", kinds);
    lua_settop(L, 3);
    lua_pushinteger(L, kind);
    lua_replace(L, 2);  /* stack: fn, kind, env */
    lua_pushcclosure(L, l_metered_call, 3);
    return 1;
}

static int msghandler(lua_State *L);

/* call(fn, ...) -> true, results... | false, message-with-traceback: one handler call
** under the instruction budget (armed from zero, disarmed after, unless already armed), in a
** single C call. */
static int l_call(lua_State *L) {
    int nargs = lua_gettop(L) - 1;
    scanlua_limits *lim = limits_of(L);
    /* A handler called while the budget is armed (scan.simulate inside a parser, or in a
    ** script's top level) runs on what is left of it: arming from zero would reset the outer
    ** count, and disarming after would let the rest of the outer handler run unbudgeted. */
    int nested = lim->armed;
    if (!nested) {
        lim->memory_refused = 0;
        scanlua_arm_budget(L, 1);
    }
    lua_pushcfunction(L, msghandler);
    lua_insert(L, 1);  /* stack: msgh, fn, args... */
    int status = lua_pcall(L, nargs, LUA_MULTRET, 1);
    if (!nested) scanlua_arm_budget(L, 0);
    lua_pushboolean(L, status == LUA_OK);
    lua_replace(L, 1);  /* stack: ok, results... */
    return lua_gettop(L);
}

/* parse(fn, ev) -> true, value, is_table, value.type | false, message: a parser's call (as call,
** first result only), with what the dispatcher checks of the value read here, raw: whether it is
** a table and its `type` field. Saves the dispatcher two calls into C (type, rawget) an event.
** A read-only view (an event, a frozen library: its metatable's __metatable is a string) is
** not a table of the parser's own, whose `type` the dispatcher may set: is_table is false and
** the fourth value says what it is. */
static int l_parse(lua_State *L) {
    l_call(L);
    lua_settop(L, 2);  /* ok, value */
    if (!lua_toboolean(L, 1)) return 2;
    int table = lua_type(L, 2) == LUA_TTABLE;
    if (table && lua_getmetatable(L, 2)) {
        lua_pushliteral(L, "__metatable");
        int view = lua_rawget(L, -2) == LUA_TSTRING;
        lua_settop(L, 2);
        if (view) {
            lua_pushboolean(L, 0);
            lua_pushliteral(L, "a read-only view (return a table of your own)");
            return 4;
        }
    }
    lua_pushboolean(L, table);
    if (!table) return 3;
    lua_pushliteral(L, "type");
    lua_rawget(L, 2);
    return 4;
}

static int l_hook_thread(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    if (co) lua_sethook(co, count_hook, LUA_MASKCOUNT, HOOK_EVERY);
    return 0;
}

static int l_tripped(lua_State *L) {
    lua_pushboolean(L, limits_of(L)->tripped);
    return 1;
}

static int l_memory_refused(lua_State *L) {
    lua_pushboolean(L, limits_of(L)->memory_refused);
    return 1;
}

void scanlua_push_limit_functions(lua_State *L) {
    static const luaL_Reg funcs[] = {
        {"call", l_call}, {"parse", l_parse}, {"hook_thread", l_hook_thread}, {"tripped", l_tripped}, {"memory_refused", l_memory_refused},
        {"metered", l_metered},
        {NULL, NULL}
    };
    luaL_newlib(L, funcs);
    scanlua_push_pattern_functions(L);
    lua_setfield(L, -2, "patterns");
}

/* }=============================================================== */

/* {====================== Protected calls ======================} */

static int msghandler(lua_State *L) {
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {  /* error object is not a string */
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        /* Where it was raised: level 1 is `error` itself, level 2 the Lua line that called it. */
        luaL_where(L, 2);
        msg = lua_pushfstring(L, "%s(error object is a %s value)", lua_tostring(L, -1), luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

int scanlua_pcall(lua_State *L, int nargs, int nresults) {
    int base = lua_gettop(L) - nargs;  /* function index */
    lua_pushcfunction(L, msghandler);
    lua_insert(L, base);  /* put it under the function */
    int status = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);  /* keep the stack balanced */
    return status;
}

void scanlua_push_msghandler(lua_State *L) {
    lua_pushcfunction(L, msghandler);
}

int scanlua_pcall_at(lua_State *L, int nargs, int nresults, int msgh) {
    return lua_pcall(L, nargs, nresults, msgh);
}

int scanlua_loadbuffer(lua_State *L, const char *buf, size_t len, const char *chunkname) {
    return luaL_loadbufferx(L, buf, len, chunkname, "t");
}

/* }============================================================ */

/* {====================== Swift functions ======================} */

static int swift_trampoline(lua_State *L) {
    scanlua_swift_fn fn = (scanlua_swift_fn)lua_touserdata(L, lua_upvalueindex(1));
    void *context = lua_touserdata(L, lua_upvalueindex(2));
    int64_t id = (int64_t)lua_tointeger(L, lua_upvalueindex(3));
    scanlua_limits *lim = limits_of(L);
    if (lim->closing) return luaL_error(L, "the engine is closing: host functions are gone");
    /* The memory cap is lifted while Swift runs: a refused allocation there would longjmp
    ** through Swift frames (leaking what they hold). The cap is checked once Swift returned. */
    int outermost = !lim->in_host;
    if (outermost) {
        lim->host_limit = lim->memory_limit;
        lim->memory_limit = 0;
        lim->in_host = 1;
    }
    int n = fn(L, context, id);
    size_t cap = lim->host_limit;  /* the Swift function may have changed it (scan.options) */
    if (outermost) {
        lim->memory_limit = cap;
        lim->in_host = 0;
    }
    if (n < 0) return lua_error(L);  /* message is on top; the longjmp stays in C */
    if (outermost && cap && lim->memory_used > cap) {
        lim->memory_refused = 1;
        lua_pushliteral(L, "not enough memory");
        return lua_error(L);
    }
    return n;
}

void scanlua_close(lua_State *L, int64_t close_budget) {
    scanlua_limits *lim = limits_of(L);
    lim->closing = 1;
    lim->instruction_limit = close_budget;
    /* Armed on the main thread for the finalizers lua_close runs: an endless one trips the
    ** hook, its error becomes a warning, and closing goes on. */
    scanlua_arm_budget(L, 1);
    lua_close(L);
}

void scanlua_push_swift_function(lua_State *L, scanlua_swift_fn fn, void *context, int64_t id) {
    lua_pushlightuserdata(L, (void *)fn);
    lua_pushlightuserdata(L, context);
    lua_pushinteger(L, (lua_Integer)id);
    lua_pushcclosure(L, swift_trampoline, 3);
}

/* }============================================================ */

/* {====================== JSON ======================} */

typedef struct jbuf { char *p; size_t n, cap; int failed; } jbuf;

static void jput(jbuf *b, const char *s, size_t n) {
    if (b->failed) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->n + n) cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) { b->failed = 1; return; }
        b->p = q; b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void jputc(jbuf *b, char c) { jput(b, &c, 1); }

static void jescape(jbuf *b, unsigned v) {
    static const char hex[] = "0123456789abcdef";
    char e[6] = { '\\', 'u', hex[(v >> 12) & 15], hex[(v >> 8) & 15], hex[(v >> 4) & 15], hex[v & 15] };
    jput(b, e, 6);
}

/* Length of the valid UTF-8 sequence at s (1-4), or -(length of the maximal invalid
** subpart) as Swift's String(decoding:) replaces it with one U+FFFD. */
static int utf8_len(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    int need; unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c == 0xE0) { need = 2; lo = 0xA0; }
    else if (c >= 0xE1 && c <= 0xEC) need = 2;
    else if (c == 0xED) { need = 2; hi = 0x9F; }
    else if (c >= 0xEE && c <= 0xEF) need = 2;
    else if (c == 0xF0) { need = 3; lo = 0x90; }
    else if (c >= 0xF1 && c <= 0xF3) need = 3;
    else if (c == 0xF4) { need = 3; hi = 0x8F; }
    else return -1;
    for (int i = 1; i <= need; i++) {
        if ((size_t)i >= n) return -i;
        unsigned d = s[i];
        if (d < (i == 1 ? lo : 0x80) || d > (i == 1 ? hi : 0xBF)) return -i;
    }
    return need + 1;
}

static void jstring(jbuf *b, const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    jputc(b, '"');
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
            size_t j = i + 1;
            while (j < n && s[j] >= 0x20 && s[j] < 0x7F && s[j] != '"' && s[j] != '\\') j++;
            jput(b, str + i, j - i);
            i = j;
            continue;
        }
        if (c == '"') { jput(b, "\\\"", 2); i++; continue; }
        if (c == '\\') { jput(b, "\\\\", 2); i++; continue; }
        if (c == '\n') { jput(b, "\\n", 2); i++; continue; }
        if (c == '\r') { jput(b, "\\r", 2); i++; continue; }
        if (c == '\t') { jput(b, "\\t", 2); i++; continue; }
        if (c < 0x20 || c == 0x7F) { jescape(b, c); i++; continue; }
        int len = utf8_len(s + i, n - i);
        if (len < 0) { jput(b, "\xEF\xBF\xBD", 3); i += (size_t)(-len); continue; }
        if (len == 2 && c == 0xC2 && s[i + 1] < 0xA0) { jescape(b, s[i + 1]); i += 2; continue; }  /* C1 */
        if (len == 3 && c == 0xE2 && s[i + 1] == 0x80 && (s[i + 2] == 0xA8 || s[i + 2] == 0xA9)) {
            jescape(b, s[i + 2] == 0xA8 ? 0x2028 : 0x2029); i += 3; continue;
        }
        jput(b, str + i, (size_t)len);
        i += (size_t)len;
    }
    jputc(b, '"');
}

/* An integer's digits without printf (this runs for most payload fields). */
static void jinteger(jbuf *b, long long v) {
    char t[24];
    int i = 24;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do { t[--i] = (char)('0' + u % 10); u /= 10; } while (u);
    if (v < 0) t[--i] = '-';
    jput(b, t + i, (size_t)(24 - i));
}

/* A finite double's text into t (40 bytes): integral values below 1e15 as integers, others in
** the fewest of 15, 16 or 17 significant digits that read back as d. JSON.numberText in Swift
** writes the same. */
static int number_text(char *t, double d) {
    if (fabs(d) < 1e15 && d == (double)(long long)d) return snprintf(t, 40, "%lld", (long long)d);
    int k = 0;
    for (int prec = 15; prec <= 17; prec++) {
        k = snprintf(t, 40, "%.*g", prec, d);
        if (strtod(t, NULL) == d) break;
    }
    return k;
}

static void jnumber(jbuf *b, double d) {
    char t[40];
    if (d != d || d == HUGE_VAL || d == -HUGE_VAL) { jput(b, "null", 4); return; }
    if (fabs(d) < 1e15 && d == (double)(long long)d) { jinteger(b, (long long)d); return; }
    jput(b, t, (size_t)number_text(t, d));
}

typedef struct jkey {
    const char *s;    /* a string key's bytes (held by the table), or NULL: then tmp */
    size_t n;
    int is_type;      /* "type" sorts first */
    int slot;         /* where its value sits on the stack, from the first value */
    char tmp[40];     /* a number's or boolean's text */
} jkey;

static const char *jkey_text(const jkey *k) { return k->s ? k->s : k->tmp; }

static int jkey_cmp(const void *pa, const void *pb) {
    const jkey *a = pa, *b = pb;
    if (a->is_type != b->is_type) return b->is_type - a->is_type;
    size_t m = a->n < b->n ? a->n : b->n;
    int c = memcmp(jkey_text(a), jkey_text(b), m);
    if (c) return c;
    return a->n < b->n ? -1 : a->n > b->n;
}

static int jvalue(lua_State *L, int idx, jbuf *b, int depth);

/* Insertion sort for a handful of keys (qsort's calls cost more there); qsort above that: a
** payload with 200,000 keys took minutes to sort one key at a time, after its handler's budget. */
static void sort_keys(jkey *list, int count) {
    if (count > 16) {
        qsort(list, (size_t)count, sizeof *list, jkey_cmp);
        return;
    }
    for (int i = 1; i < count; i++) {
        jkey k = list[i];
        int j = i - 1;
        while (j >= 0 && jkey_cmp(&list[j], &k) > 0) { list[j + 1] = list[j]; j--; }
        list[j + 1] = k;
    }
}

/* The text of the key at -2 (numbers and booleans formatted as the Swift host did).
** A string key is read in place: lua_tolstring on a number key would break lua_next. */
static void key_text(lua_State *L, jkey *k) {
    k->s = NULL;
    switch (lua_type(L, -2)) {
    case LUA_TSTRING: k->s = lua_tolstring(L, -2, &k->n); return;
    case LUA_TNUMBER:
        if (lua_isinteger(L, -2)) snprintf(k->tmp, sizeof k->tmp, "%lld", (long long)lua_tointeger(L, -2));
        else {
            double d = lua_tonumber(L, -2);  /* NaN cannot be a key; infinities can */
            if (d == HUGE_VAL || d == -HUGE_VAL) snprintf(k->tmp, sizeof k->tmp, "%s", d > 0 ? "inf" : "-inf");
            else number_text(k->tmp, d);
        }
        break;
    case LUA_TBOOLEAN: snprintf(k->tmp, sizeof k->tmp, "%s", lua_toboolean(L, -2) ? "true" : "false"); break;
    default: snprintf(k->tmp, sizeof k->tmp, "<%s>", luaL_typename(L, -2)); break;
    }
    k->n = strlen(k->tmp);
}

static int jtable(lua_State *L, int idx, jbuf *b, int depth) {
    if (depth >= 64 || !lua_checkstack(L, 4)) return -1;
    /* A read-only view (an event's bbox, points, ...; metatable field __jsonkey, read raw) is
       written as the table it shows. */
    if (lua_getmetatable(L, idx)) {
        lua_pushliteral(L, "__jsonkey");
        lua_rawget(L, -2);
        if (!lua_isnil(L, -1)) {
            lua_rawget(L, idx);  /* mt, t[key] */
            if (lua_istable(L, -1)) {
                int r = jtable(L, lua_gettop(L), b, depth + 1);
                lua_pop(L, 2);
                return r;
            }
        }
        lua_pop(L, 2);
    }
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    /* An empty table marked by json.array (metatable field __jsontype = "array", read raw) is []. */
    if (n == 0 && lua_getmetatable(L, idx)) {
        lua_pushliteral(L, "__jsontype");
        lua_rawget(L, -2);
        int array = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "array") == 0;
        lua_pop(L, 2);
        if (array) { jput(b, "[]", 2); return 0; }
    }
    if (n > 0) {
        /* An array only when the keys are exactly 1..n (a hole with another key is an object). */
        lua_Integer count = 0;
        int all_index = 1;
        lua_pushnil(L);
        while (lua_next(L, idx) != 0) {
            count++;
            if (!lua_isinteger(L, -2) || lua_tointeger(L, -2) < 1 || lua_tointeger(L, -2) > n) all_index = 0;
            lua_pop(L, 1);
        }
        if (count == n && all_index) {
            jputc(b, '[');
            for (lua_Integer k = 1; k <= n; k++) {
                if (k > 1) jputc(b, ',');
                lua_rawgeti(L, idx, k);
                int r = jvalue(L, lua_gettop(L), b, depth + 1);
                lua_pop(L, 1);
                if (r) return r;
            }
            jputc(b, ']');
            return 0;
        }
    }
    /* An object: each value stays on the stack (no table is made), keys sorted in C. */
    int base = lua_gettop(L), count = 0, cap = 16, r = 0;
    jkey small[16];
    jkey *list = small;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {  /* stack: values..., key, value */
        if (count == cap) {
            jkey *bigger = malloc(sizeof(jkey) * (size_t)cap * 2);
            if (!bigger) { r = -1; break; }
            memcpy(bigger, list, sizeof(jkey) * (size_t)count);
            if (list != small) free(list);
            list = bigger;
            cap *= 2;
        }
        jkey *k = &list[count];
        key_text(L, k);
        k->is_type = k->n == 4 && memcmp(jkey_text(k), "type", 4) == 0;
        k->slot = count++;
        lua_insert(L, -2);  /* values..., value, key: lua_next goes on from the key */
        if (!lua_checkstack(L, 4)) { r = -1; break; }
    }
    if (!r) {
        sort_keys(list, count);
        int renamed = 0;
        /* A number or boolean key that reads like a string key of the same table ({[1.5]=, ["1.5"]=})
        ** would be a duplicate JSON key: it is written in brackets, "[1.5]". */
        for (int i = 1; i < count; i++) {
            if (list[i].n != list[i - 1].n || memcmp(jkey_text(&list[i]), jkey_text(&list[i - 1]), list[i].n) != 0) continue;
            jkey *k = list[i].s == NULL ? &list[i] : &list[i - 1];
            if (k->s == NULL && k->n + 2 < sizeof k->tmp) {
                memmove(k->tmp + 1, k->tmp, k->n);
                k->tmp[0] = '[';
                k->tmp[k->n + 1] = ']';
                k->n += 2;
                k->tmp[k->n] = '\0';
                renamed = 1;
            }
        }
        if (renamed) sort_keys(list, count);
        jputc(b, '{');
        for (int i = 0; i < count && !r; i++) {
            if (i > 0) jputc(b, ',');
            jstring(b, jkey_text(&list[i]), list[i].n);
            jputc(b, ':');
            r = jvalue(L, base + 1 + list[i].slot, b, depth + 1);
        }
        jputc(b, '}');
    }
    if (list != small) free(list);
    lua_settop(L, base);
    return r;
}

static int jvalue(lua_State *L, int idx, jbuf *b, int depth) {
    switch (lua_type(L, idx)) {
    case LUA_TNIL: case LUA_TNONE: jput(b, "null", 4); return 0;
    case LUA_TBOOLEAN: if (lua_toboolean(L, idx)) jput(b, "true", 4); else jput(b, "false", 5); return 0;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) jinteger(b, (long long)lua_tointeger(L, idx));
        else jnumber(b, lua_tonumber(L, idx));
        return 0;
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        jstring(b, s, n);
        return 0;
    }
    case LUA_TTABLE: return jtable(L, idx, b, depth);
    default: {
        char t[40];
        int k = snprintf(t, sizeof t, "\"<%s>\"", luaL_typename(L, idx));
        jput(b, t, (size_t)k);
        return 0;
    }
    }
}


/* }============================================================ */

/* {====================== Batch records ======================} */

static int records_put(scanlua_records *r, const char *s, size_t n) {
    if (r->len + n > r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 65536;
        while (cap < r->len + n) cap *= 2;
        char *q = realloc(r->data, cap);
        if (!q) return -1;
        r->data = q; r->cap = cap;
    }
    if (r->count + 1 > r->capn) {
        size_t capn = r->capn ? r->capn * 2 : 1024;
        size_t *e = realloc(r->ends, capn * sizeof(size_t));
        if (!e) return -1;
        r->ends = e; r->capn = capn;
    }
    if (n) memcpy(r->data + r->len, s, n);
    r->len += n;
    r->ends[r->count++] = r->len;
    return 0;
}

/* Encodes the value at idx onto the end of r's data as one segment; on failure r is as it was. */
static int records_encode(lua_State *L, int idx, scanlua_records *r) {
    jbuf b = { r->data, r->len, r->cap, 0 };
    int top = lua_gettop(L);
    int failed = jvalue(L, idx, &b, 0) || b.failed;
    lua_settop(L, top);
    r->data = b.p;
    r->cap = b.cap;
    if (failed) return -1;
    size_t start = r->len;
    r->len = b.n;
    if (records_put(r, NULL, 0)) { r->len = start; return -1; }
    return 0;
}

static int l_append_record(lua_State *L) {
    scanlua_records *r = (scanlua_records *)lua_touserdata(L, lua_upvalueindex(1));
    size_t len = r->len, count = r->count, nlen = 0;
    const char *name = lua_type(L, 2) == LUA_TSTRING ? lua_tolstring(L, 2, &nlen) : NULL;
    const char *part = NULL;
    if (records_encode(L, 1, r)) part = "payload";
    else if (records_put(r, name, nlen)) part = "parser";
    else if (lua_type(L, 3) == LUA_TTABLE ? records_encode(L, 3, r) : records_put(r, NULL, 0)) part = "extras";
    if (part) {
        r->len = len;  /* nothing of this record stays */
        r->count = count;
        lua_pushboolean(L, 0);
        lua_pushliteral(L, "table nests deeper than 64 levels (a cycle?)");
        lua_pushstring(L, part);
        return 3;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* encodable(v) -> whether v can be written as JSON (the same encoder, into a scratch buffer). */
static int l_encodable(lua_State *L) {
    jbuf b = { NULL, 0, 0, 0 };
    int top = lua_gettop(L);
    int failed = jvalue(L, 1, &b, 0) || b.failed;
    lua_settop(L, top);
    free(b.p);
    lua_pushboolean(L, !failed);
    return 1;
}

void scanlua_push_json_check(lua_State *L) { lua_pushcfunction(L, l_encodable); }

void scanlua_push_record_appender(lua_State *L, scanlua_records *r) {
    lua_pushlightuserdata(L, r);
    lua_pushcclosure(L, l_append_record, 1);
}

void scanlua_records_reset(scanlua_records *r) { r->len = 0; r->count = 0; }

void scanlua_records_free(scanlua_records *r) {
    free(r->data);
    free(r->ends);
    r->data = NULL; r->ends = NULL;
    r->len = r->cap = r->count = r->capn = 0;
}

/* }============================================================ */
