-- Shared by the bench scripts: done() prints one line "BENCH_JSON {...}" the harness parses.
-- Latencies are wrk's own histogram (microseconds, with wrk's coordinated-omission correction).
local report = {}

local function status_counts(threads)
  local counts = {}
  for _, thread in ipairs(threads) do
    local seen = thread:get("statuses")
    if seen then
      for status, count in pairs(seen) do
        counts[status] = (counts[status] or 0) + count
      end
    end
  end
  return counts
end

function report.done(summary, latency, threads, extra)
  local parts = {
    string.format('"requests":%d', summary.requests),
    string.format('"duration_us":%d', summary.duration),
    string.format('"bytes":%d', summary.bytes),
    string.format('"p50_us":%d', latency:percentile(50)),
    string.format('"p90_us":%d', latency:percentile(90)),
    string.format('"p99_us":%d', latency:percentile(99)),
    string.format('"p999_us":%d', latency:percentile(99.9)),
    string.format('"max_us":%d', latency.max),
    string.format('"mean_us":%.1f', latency.mean),
    string.format(
      '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}',
      summary.errors.connect, summary.errors.read, summary.errors.write,
      summary.errors.status, summary.errors.timeout
    ),
  }
  local statuses = {}
  for status, count in pairs(status_counts(threads)) do
    statuses[#statuses + 1] = string.format('"%s":%d', status, count)
  end
  parts[#parts + 1] = '"statuses":{' .. table.concat(statuses, ",") .. "}"
  for key, value in pairs(extra or {}) do
    parts[#parts + 1] = string.format('"%s":%d', key, value)
  end
  io.write("BENCH_JSON {" .. table.concat(parts, ",") .. "}\n")
end

return report
