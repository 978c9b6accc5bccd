-- The write path: POST /tour creates a tour; once its 201 comes back (matched by the x-request-id the
-- bridge echoes), a later request on any connection of the thread DELETEs it. So every DELETE follows
-- its POST, and the sim's tour store holds only the tours in flight. Names are unique per wrk thread.
package.path = package.path .. ";" .. os.getenv("BENCH_WRK_DIR") .. "/?.lua"
local report = require("report")

-- Main state: the threads, for done(). Thread states: the globals below, read back with thread:get.
local threads = {}
statuses = {}
posts = 0
deletes = 0
thread_id = 0
-- Set from the command line (`wrk ... -- <prefix>`): runs after one another never reuse a name.
prefix = "b"

local counter = 0
local created = {}
local json_headers = { ["Content-Type"] = "application/json" }

function setup(thread)
  threads[#threads + 1] = thread
  thread:set("thread_id", #threads)
end

function init(args)
  prefix = args[1] or prefix
end

function request()
  local name = table.remove(created)
  if name then
    deletes = deletes + 1
    return wrk.format("DELETE", "/tour/" .. name, { ["x-request-id"] = "d-" .. name })
  end
  counter = counter + 1
  posts = posts + 1
  name = string.format("%s-%d-%d", prefix, thread_id, counter)
  local body = '{"tour_name":"' .. name .. '","map_name":"bench","steps":['
    .. '{"description":"Greet visitors","destination":"entrance","dialogue":"Welcome!"},'
    .. '{"description":"Say goodbye","destination":null,"dialogue":null}]}'
  json_headers["x-request-id"] = "p-" .. name
  return wrk.format("POST", "/tour", json_headers, body)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status == 201 then
    local id = headers["x-request-id"]
    if id and id:sub(1, 2) == "p-" then
      created[#created + 1] = id:sub(3)
    end
  end
end

function done(summary, latency, requests)
  local posts_total, deletes_total = 0, 0
  for _, thread in ipairs(threads) do
    posts_total = posts_total + (thread:get("posts") or 0)
    deletes_total = deletes_total + (thread:get("deletes") or 0)
  end
  report.done(summary, latency, threads, { posts = posts_total, deletes = deletes_total })
end
