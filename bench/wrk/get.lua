-- GET of the URL given on the command line. response() counts statuses per thread (it costs wrk a
-- little, the same for every server) so a run that answered errors is visible in the report.
package.path = package.path .. ";" .. os.getenv("BENCH_WRK_DIR") .. "/?.lua"
local report = require("report")

-- Main state: the threads, for done(). Thread states: `statuses`, read back with thread:get.
local threads = {}
statuses = {}

function setup(thread)
  threads[#threads + 1] = thread
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  report.done(summary, latency, threads)
end
