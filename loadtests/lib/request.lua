-- One request with a body for wrk, the way loadtests/upload.js and health-code.js send it:
--
--   METHOD=POST BODY_FILE=health.jpg CONTENT_TYPE=application/octet-stream \
--     wrk -t2 -c100 -d10s --latency -s loadtests/lib/request.lua http://127.0.0.1:8000/files
--
-- Env: METHOD (POST), BODY_FILE (the body's bytes; none without it), CONTENT_TYPE,
-- AUTHORIZATION (the header's value: the stack's bearer token for writes), and
-- UNIQUE_PATH: a path holding `{unique}`, sent with a name of its own per request (thread
-- and count), as upload.js does for PUT /ingest/{unique}.
wrk.method = os.getenv("METHOD") or "POST"

local body_file = os.getenv("BODY_FILE")
if body_file then
  local file = assert(io.open(body_file, "rb"))
  wrk.body = file:read("*a")
  file:close()
end

local content_type = os.getenv("CONTENT_TYPE")
if content_type then
  wrk.headers["Content-Type"] = content_type
end

-- The bearer token a write needs (docs/security.md), as `Bearer <token>`.
local authorization = os.getenv("AUTHORIZATION")
if authorization then
  wrk.headers["Authorization"] = authorization
end

local unique_path = os.getenv("UNIQUE_PATH")
local threads = 0
-- Set in each thread's own Lua state by setup() below.
thread_id = 0

function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

if unique_path then
  local count = 0
  request = function()
    count = count + 1
    local path = unique_path:gsub("{unique}", thread_id .. "-" .. count)
    return wrk.format(nil, path)
  end
end
