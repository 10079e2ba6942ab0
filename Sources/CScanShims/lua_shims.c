/*
** $Id: lua_shims.c $
** Lua 5.4 host helpers: counted allocator, instruction budget, protected
** calls with tracebacks, and the trampoline for Swift functions.
*/
#include "CScanLua.h"

#include <stdlib.h>
#include <string.h>

/* {====================== Allocator and hook ======================} */

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
    return p;
}

#define HOOK_EVERY 1000

static scanlua_limits *limits_of(lua_State *L) {
    void *ud;
    lua_getallocf(L, &ud);
    return (scanlua_limits *)ud;
}

static void count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    scanlua_limits *lim = limits_of(L);
    if (!lim->armed) return;
    lim->instructions += HOOK_EVERY;
    if (lim->instruction_limit && lim->instructions > lim->instruction_limit) {
        lim->tripped = 1;
        /* Inside a hook, level 0 is the running Lua function: name its line. */
        luaL_where(L, 0);
        lua_pushfstring(L, "instruction budget exceeded (%I instructions)", (lua_Integer)lim->instruction_limit);
        lua_concat(L, 2);
        lua_error(L);
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

static int msghandler(lua_State *L);

/* call(fn, ...) -> true, results... | false, message-with-traceback: one handler call
** under the instruction budget (armed from zero, disarmed after), in a single C call. */
static int l_call(lua_State *L) {
    int nargs = lua_gettop(L) - 1;
    scanlua_limits *lim = limits_of(L);
    lim->memory_refused = 0;
    scanlua_arm_budget(L, 1);
    lua_pushcfunction(L, msghandler);
    lua_insert(L, 1);  /* stack: msgh, fn, args... */
    int status = lua_pcall(L, nargs, LUA_MULTRET, 1);
    scanlua_arm_budget(L, 0);
    lua_pushboolean(L, status == LUA_OK);
    lua_replace(L, 1);  /* stack: ok, results... */
    return lua_gettop(L);
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
        {"call", l_call}, {"hook_thread", l_hook_thread}, {"tripped", l_tripped}, {"memory_refused", l_memory_refused},
        {NULL, NULL}
    };
    luaL_newlib(L, funcs);
}

/* }=============================================================== */

/* {====================== Protected calls ======================} */

static int msghandler(lua_State *L) {
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {  /* error object is not a string */
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
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
    int n = fn(L, context, id);
    if (n < 0) return lua_error(L);  /* message is on top; the longjmp stays in C */
    return n;
}

void scanlua_push_swift_function(lua_State *L, scanlua_swift_fn fn, void *context, int64_t id) {
    lua_pushlightuserdata(L, (void *)fn);
    lua_pushlightuserdata(L, context);
    lua_pushinteger(L, (lua_Integer)id);
    lua_pushcclosure(L, swift_trampoline, 3);
}

/* }============================================================ */
