---@meta scan
-- LuaLS annotations for scanlua's Lua API, one ---@meta file per module (`require "scan"`,
-- `require "store"`, ...) and testing.lua for the test API's globals. Not loaded at run time:
-- point your editor's Lua language server at them ("workspace.library": ["<scanlua>/scripts/types"]).

---@class scanlua.Point
---@field x integer
---@field y integer

---@class scanlua.Box
---@field x integer
---@field y integer
---@field width integer
---@field height integer

---One decoded symbol as handlers see it. Read-only: writing a field raises an error.
---@class scanlua.Event
---@field symbology string   `qrcode`, `ean13`, `ean8`, `upca`, `upce`, `isbn10`, `isbn13`, `ean2`, `ean5`, `i25`, `databar`, `databar-exp`, `codabar`, `code39`, `code93`, `code128`, `sqcode`, `datamatrix`, `pdf417`, `micropdf417`, `aztec`, `microqr`, `rmqr`, `maxicode`, `databar-limited`, `databar-stacked`, `databar-exp-stacked`, `code32`, `pzn`, `telepen`, `dxfilmedge`
---@field bytes string       the payload exactly as encoded (a byte string)
---@field text string        UTF-8 text of bytes, read with `charset`
---@field charset string     `utf-8`, `big5`, `gb18030`, `shift_jis`, `iso-8859-1`, `binary`, or the charset the code declared by ECI (`gb2312`, `shift_jis`, ...)
---@field points scanlua.Point[] QR corners, or the outline of a linear code, in image pixels
---@field bbox scanlua.Box
---@field orientation string `up`, `right`, `down`, `left` or `unknown`
---@field quality integer
---@field modifiers string[] `gs1`, `aim`
---@field addon? string      EAN-2/EAN-5 add-on digits next to an EAN/UPC code
---@field source string      file path, `-`, or `simulate`
---@field frame integer      frame index within the source (0 for still images; an animated GIF's frame)
---@field page? integer      a document's page (PDF, TIFF), from 1; nil for images and streams
---@field time integer       capture time, whole seconds since 1970 (`os.date(fmt, ev.time)` works)
---@field time_ms integer    capture time, milliseconds since 1970
---@field fields? table      what a Lua decoder's value carried for its parser (`fields = {...}`)
---@field decoder string     `zbar`, `zxing`, `zbar+zxing` (both read it) or `lua`
---@field symbology_id? string  the AIM symbology identifier, e.g. `]Q1`, `]d2` (GS1 DataMatrix)
---@field siblings scanlua.Event[] the other symbols of the same frame (no siblings of their own)

---What a parser returns: any table; `type` defaults to the parser's name.
---@class scanlua.Payload
---@field type string

---An action rules return for the host to carry out (`--dry-run` only prints it).
---@class scanlua.Action
---@field type "append"|"stop"|"http"|"mqtt"  append: `path` (below the working directory) and `line`; stop: end the scan after this frame; http: `url` and `body`; mqtt: `broker`, `topic` and `payload` (docs/lua-api.md)
---@field path? string
---@field line? string
---@field url? string                   http: http:// or https://, on the network allow-list
---@field method? "GET"|"POST"|"PUT"|"PATCH"|"DELETE"  http (default POST)
---@field headers? table<string, string>  http: extra headers (scanlua adds Idempotency-Key)
---@field body? table|string            http: a table is sent as JSON, a string as text
---@field broker? string                mqtt: mqtt://host:port or mqtts://host:port
---@field topic? string                 mqtt: no wildcards
---@field payload? table|string         mqtt: a table is sent as JSON
---@field qos? 0|1|2                  mqtt (default 1)
---@field retain? boolean               mqtt (default false)
---@field ca_file? string               mqtts: the CA certificates file
---@field timeout? number               http and mqtt: seconds (default 10)

---@class scanlua.ParserSpec
---@field name string                   unique name; also the payload `type` when parse leaves it out
---@field parse fun(ev: scanlua.Event): scanlua.Payload|nil  return a payload to claim the symbol, nil to pass
---@field symbologies? string|string[]  only these symbologies (keyed parsers run before the others)
---@field match? string                 a Lua pattern the text must match (cheap prefilter)
---@field when? fun(ev: scanlua.Event): boolean  a predicate run before parse
---@field priority? number              higher runs first (default 0)
---@field types? string|string[]        the payload types parse returns (a rule's `on` naming none of them is warned about)

---@class scanlua.Context
---@field rule string                    the running rule's name
---@field event scanlua.Event            the symbol's event
---@field emit fun(record: table)        add a record to the symbol's `emitted` list (gets `rule`)
---@field log fun(level: "debug"|"info"|"warn"|"error", message: string)  a line on stderr

---@class scanlua.RuleSpec
---@field name string
---@field run fun(payload: scanlua.Payload, ctx: scanlua.Context): scanlua.Action|scanlua.Action[]|nil
---@field on? string|string[]            payload types it applies to (nil or "*" for all)
---@field when? fun(payload: scanlua.Payload, ev: scanlua.Event): boolean

---Settings a config gives with scan.options (the command line wins over them).
---@class scanlua.Options
-- BEGIN options (from Option.registry; DocsDriftTests checks it)
---@field empty_records? boolean         A record for each image in which nothing was read too, so every input is accounted for: {"source":...,"frame":0,"symbols":0} (text: a line on stderr).
---@field decoders? string|string[]      Comma-separated decoders: zbar, zxing, gray (default all; one record per code either way). gray reads blurred EAN/UPC codes in image files the others left unread.
---@field effort? "fast"|"balanced"|"thorough" fast, balanced (default) or thorough: zxing-cpp's retries (rotations, inversions, binarizers), the scale pyramid, the retries of dark or unread photos, and where zbar runs (see README).
---@field roi? string                    Decode only this region: pixels, or fractions of the frame (0.25,0.25,0.5,0.5); points stay in frame coordinates.
---@field threads? integer               Decoding threads (default: one per core). Records are the same whatever the number.
---@field time_budget? number            Seconds per image file for the passes after the first: once spent, the rest are skipped and the record's warnings say so (default: fast 1, balanced 2, thorough 10; 0 = no limit).
---@field max_file_size? integer         Bytes an input file may have (default 200 MiB), checked before it is read.
---@field dpi? integer                   Resolution PDF pages are rendered at (default 300; 600 for small codes).
---@field pages? string                  Read only these pages (or frames) of a PDF, TIFF or GIF, from 1: 1-3,7 or 5- .
---@field duplicates? "once"|"interval"|"consecutive"|"all" once (each code once per session), interval (again after --interval seconds), consecutive (again when another code came between), all.
---@field interval? number               For --duplicates interval (default 1), in frame capture time.
---@field once? boolean                  Stop after the first accepted code (exit 0, printing it).
---@field max_frames? integer            Stop after N frames.
---@field max_fps? number                Read at most F frames per second.
---@field timeout? number                Stop after this many seconds.
---@field beep? boolean                  Ring the terminal bell for each accepted code.
---@field settle? number                 A watched folder: scan a file once it has not changed for SECONDS (default 1), so a file still being written is not read early.
---@field default_scripts? boolean       Do not load the shipped handler library (scripts/default.lua).
---@field trust? boolean                 Give scripts the full Lua standard library instead of the sandbox.
---@field instruction_limit? integer     Instructions per handler call (default 10000000; 0 = unlimited).
---@field memory_limit? integer          Bytes the whole Lua state may hold (default 256 MiB; 0 = unlimited); the flag takes MiB.
---@field max_failures? integer          Disable a handler after N failures in a row (default 5).
---@field disable? string|string[]       Parsers and rules to switch off once everything is loaded: a list of names (shipped ones too).
---@field delivery_wait? number          How long a scan waits for a delivery's answer (default 0.2): then it is queued and sent in the background.
---@field max_delivery_attempts? integer Give a delivery up (failed, listed by outbox --failed) after N attempts (default 10).
---@field max_delivery_age? number       Give a delivery up once it is older than HOURS (default 168: a week).
---@field network? string|string[]       Hosts http and mqtt actions may reach: a list of host[:port] patterns (*.example.com for subdomains); only the config or --network sets it.
---@field db? string                     The store's SQLite database file (--db wins).
---@field worker_root? string            worker: the folder job paths must lie in (realpath); others get an error result (--root wins).
-- END options

---@class scanlua.SimulateSpec
---@field symbology? string              default `qrcode`
---@field text? string                   the payload as text
---@field bytes? string                  or as bytes
---@field source? string
---@field time? number                   seconds since 1970 (default now)
---@field modifiers? string[]            `gs1`, `aim`
---@field symbology_id? string           the AIM identifier; `]C1` (GS1-128) and the other GS1 ones imply `gs1`
---@field siblings? {symbology: string?, text: string?, bytes: string?, modifiers: string[]?, symbology_id: string?}[]

---@class scanlua.Record
---@field payload scanlua.Payload
---@field parser? string                 the parser that claimed the symbol
---@field actions? scanlua.Action[]
---@field emitted? table[]
---@field errors? {parser: string?, rule: string?, message: string, traceback: string?}[]
---@field summary? string                the payload for people (scan.summary), simulate only

---A scan line cut into runs (linear decoders).
---@class scanlua.Scanline
---@field direction "row"|"column"
---@field index integer       the row's y or the column's x
---@field widths integer[]    bar, space, bar, ..., bar widths in pixels
---@field positions integer[] where each run starts (frame coordinate along the line)
---@field quiet_before integer  light pixels before the first bar, to the line's start
---@field quiet_after integer   light pixels after the last bar, to the line's end
---@field edge_before boolean   the line starts at the image's edge: the quiet zone may be longer outside it
---@field edge_after boolean    the line ends at the image's edge
---@field threshold integer

---A grayscale frame view (image decoders). A copy: changing it changes nothing.
---@class scanlua.Frame
---@field width integer
---@field height integer
---@field x integer           where the view sits in the frame
---@field y integer
---@field data string         gray levels row by row
local Frame = {}
---@return integer? level
function Frame:get(x, y) end
---@return string
function Frame:row(y) end
---@return string
function Frame:column(x) end
---@return scanlua.Frame
function Frame:crop(x, y, w, h) end
---@return integer
function Frame:otsu() end
---@param level integer?
---@return scanlua.Frame
function Frame:binarize(level) end
---@param r integer?
---@param offset integer?
---@return scanlua.Frame
function Frame:adaptive(r, offset) end

---@alias scanlua.DecodedValue string|{text: string?, bytes: string?, points: scanlua.Point[]?, fields: table?}

---@class scanlua.DecoderSpec
---@field name string                       the new symbology's name
---@field decode fun(input: scanlua.Scanline|scanlua.Frame): scanlua.DecodedValue|scanlua.DecodedValue[]|nil
---@field kind? "linear"|"image"            default linear
---@field directions? "rows"|"columns"|"both"  default rows
---@field step? integer                     pixels between scan lines (default 4)
---@field min_lines? integer                neighbouring lines a value must be read on (default 1)

---@class scanlua.scan
local scan = {}

---What a registration returns; scan.remove takes it away.
---@class scanlua.Handle
---@field kind "parser"|"rule"|"decoder"|"summary"|"hook"
---@field name string

---Runs fn before a session's first frame (scanlua watch).
---@param fn fun()
---@return scanlua.Handle
function scan.on_start(fn) end

---Runs fn after each frame with all its symbols (before duplicate filtering).
---@param fn fun(frame: {source: string, index: integer, time: integer, time_ms: integer, width: integer, height: integer, symbols: {symbology: string, text: string}[]})
---@return scanlua.Handle
function scan.on_frame(fn) end

---Runs fn when a session ends.
---@param fn fun(session: {frames: integer, accepted: integer, dropped: integer})
---@return scanlua.Handle
function scan.on_stop(fn) end

---Registers how --format text shows a payload type to people.
---@param spec {type: string, format: fun(payload: scanlua.Payload): string}
---@return scanlua.Handle
function scan.summary(spec) end

---Registers a decoder for a new symbology (see docs/new-code-types.md).
---@param spec scanlua.DecoderSpec
---@return scanlua.Handle
function scan.decoder(spec) end

---Registers a parser: symbol -> payload. The first parser that returns a table claims the symbol.
---@param spec scanlua.ParserSpec
---@return scanlua.Handle
function scan.parser(spec) end

---Registers a rule: payload -> actions. Every matching rule runs, in registration order.
---@param spec scanlua.RuleSpec
---@return scanlua.Handle
function scan.rule(spec) end

---Takes a registration away (and frees its name).
---@param handle scanlua.Handle
---@return boolean removed false when it was removed before
function scan.remove(handle) end

---Sets engine options (normally from the config file).
---@param options scanlua.Options
function scan.options(options) end

---The names of the registered handlers, in dispatch order.
---@return {parsers: string[], rules: string[], decoders: string[]}
function scan.handlers() end

---Pushes a mock symbol through the registered parsers and rules (tests, previews).
---@param spec scanlua.SimulateSpec
---@return scanlua.Record
function scan.simulate(spec) end

---Test files only: the symbols the loaded Lua decoders read in an image file.
---@param path string
---@return {symbology: string, text: string, bytes: string, quality: integer, points: scanlua.Point[]}[]
function scan.decode_file(path) end

---Test files only: the scan lines a linear decoder would be given for an image file.
---@param path string
---@param options {directions: ("rows"|"columns"|"both")?, step: integer?}?
---@return scanlua.Scanline[]
function scan.scan_lines(path, options) end

return scan
