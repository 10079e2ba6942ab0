/*
** $Id: CLuaShims.h $
** What Swift cannot call in Lua 5.4: macros (lua_pop, lua_pcall, lua_tostring,
** LUA_REGISTRYINDEX, ...), functions that raise (longjmp must never cross a
** Swift frame), and the allocator and count hook that enforce the sandbox's
** memory cap and instruction budget. Delete a wrapper when Swift imports the
** macro it stands for.
*/
#ifndef CLUASHIMS_H
#define CLUASHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#if LUA_VERSION_NUM != 504
#error "scanlua's shims are written for Lua 5.4"
#endif

/* {====================== Macro wrappers ======================} */

static const int scanlua_LUA_REGISTRYINDEX = LUA_REGISTRYINDEX;
static inline void scanlua_lua_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline const char *scanlua_lua_tolstring(lua_State *L, int i, size_t *len) { return lua_tolstring(L, i, len); }
static inline lua_Number scanlua_lua_tonumber(lua_State *L, int i) { return lua_tonumberx(L, i, NULL); }
static inline lua_Integer scanlua_lua_tointeger(lua_State *L, int i) { return lua_tointegerx(L, i, NULL); }
static inline void scanlua_lua_remove(lua_State *L, int i) { lua_remove(L, i); }

/* }============================================================ */

/* {====================== Limits ======================} */

/* Per-state accounting, passed to the allocator as its ud. */
typedef struct scanlua_limits {
    size_t memory_used;          /* bytes currently allocated by the state */
    size_t memory_limit;         /* 0 = unlimited */
    int memory_refused;          /* set when an allocation was refused */
    int64_t instructions;        /* counted since the budget was armed */
    int64_t instruction_limit;   /* 0 = unlimited */
    int armed;                   /* the hook raises only while armed */
    int tripped;                 /* the budget ran out during this arming */
    int closing;                 /* the state is being closed: no Swift function may run */
    int in_host;                 /* a Swift function runs: the cap is lifted, kept in host_limit */
    size_t host_limit;           /* the cap while in_host (what the host reads and sets) */
} scanlua_limits;

/* Closes the state with no Swift function callable (a finalizer calling print at exit finds
** the host gone, not a dangling engine). Lua runs __gc with hooks off, so the sandbox refuses
** __gc metatables; close_budget bounds any other code the close runs. */
void scanlua_close(lua_State *L, int64_t close_budget);

/* A new state whose allocations are counted against limits->memory_limit and
** whose count hook enforces limits->instruction_limit while armed. */
lua_State *scanlua_newstate(scanlua_limits *limits);

/* Charges C work (pattern steps, bytes scanned) to the budget while it is armed; raises
** "instruction budget exceeded" at the calling Lua line once it is spent. */
void scanlua_charge(lua_State *L, int64_t steps);

/* Pushes {find, match, gmatch, gsub}: Lua 5.4's pattern functions with every matcher step
** charged to the budget (lua_patterns.c). */
void scanlua_push_pattern_functions(lua_State *L);

/* Arms the instruction budget from zero (armed = 1) or disarms it (0); the count
** hook is on the calling thread only while armed. */
void scanlua_arm_budget(lua_State *L, int armed);

/* Pushes a table of C functions for the prelude: call(fn, ...) runs one handler
** under the budget and returns ok, result-or-traceback; hook_thread(co) puts the
** count hook on a coroutine; tripped() and
** memory_refused() tell why the last call failed; metered(fn, kind) wraps a library
** function so its C work is charged; patterns is scanlua_push_pattern_functions' table. */
void scanlua_push_limit_functions(lua_State *L);

/* }==================================================== */

/* {====================== Protected calls ======================} */

/* lua_pcall with a traceback message handler placed under the function and
** removed afterwards; stack: -(nargs+1) +nresults on success, +1 (message) on
** failure. Returns the Lua status. */
int scanlua_pcall(lua_State *L, int nargs, int nresults);

/* The traceback message handler, for a caller that keeps one on the stack for many
** calls, and lua_pcall with such a handler at index msgh (no insert and remove). */
void scanlua_push_msghandler(lua_State *L);
int scanlua_pcall_at(lua_State *L, int nargs, int nresults, int msgh);

/* luaL_loadbufferx in text mode only (precompiled chunks are refused). */
int scanlua_loadbuffer(lua_State *L, const char *buf, size_t len, const char *chunkname);

/* }============================================================ */

/* {====================== JSON ======================} */

/* JSON, for the records of a dispatch batch (lua_shims.c, jvalue): tables with keys exactly 1..n
** are arrays, other tables objects with keys sorted bytewise and "type" first; invalid UTF-8
** becomes U+FFFD; NaN and infinities are null; functions and userdata are "<typename>" strings;
** a table nested deeper than 64 (a cycle) fails. Values are read raw: no metamethod runs. */

/* The records of one dispatch batch, as JSON text: per event three segments (payload,
** parser name, extras or empty); ends[k] is where segment k ends in data. */
typedef struct scanlua_records {
    char *data;
    size_t len, cap;
    size_t *ends;
    size_t count, capn;
} scanlua_records;

/* Pushes append_record(payload, parser, extras?) -> true | false, message, part, a C closure
** that encodes into r; on failure nothing of the record is appended and part says what failed
** ("payload" or "extras"). */
void scanlua_push_record_appender(lua_State *L, scanlua_records *r);
/* Pushes encodable(value) -> boolean: whether the JSON encoder can write value. */
void scanlua_push_json_check(lua_State *L);
/* Empties r for the next batch, keeping its memory; scanlua_records_free releases it. */
void scanlua_records_reset(scanlua_records *r);
void scanlua_records_free(scanlua_records *r);

/* }============================================================ */

/* {====================== Swift functions ======================} */

/* A Swift function exposed to Lua. It returns the number of results, or -1
** after pushing an error message: the C trampoline then raises it, so the
** longjmp starts and ends in C. */
typedef int (*scanlua_swift_fn)(lua_State *L, void *context, int64_t id);

/* Pushes a C closure that calls fn(L, context, id). */
void scanlua_push_swift_function(lua_State *L, scanlua_swift_fn fn, void *context, int64_t id);

/* }============================================================ */

#endif
