-- wrk script for `Benchmarks/Serve/load`: POST /events with EVENTS events a
-- request (env, default 1), each with an id of its own (IDS=0: none), and a
-- summary line with events/s and latency percentiles to p99.9 at the end.
local events = tonumber(os.getenv("EVENTS") or "1")
local ids = os.getenv("IDS") ~= "0"
local counter = 0
thread_id = 0
local threads = {}

function setup(thread)
  thread:set("thread_id", #threads)
  table.insert(threads, thread)
end

function init(args)
  wrk.headers["Content-Type"] = "application/x-ndjson"
end

function request()
  counter = counter + 1
  local lines = {}
  for i = 1, events do
    local n = (counter - 1) * events + i
    local id = ids and string.format('"id": "t%d-%d", ', thread_id, n) or ""
    lines[i] = string.format(
      '{%s"type": "item_added", "at": "2025-09-16T09:00:00Z", "cart": "load-%d-%d", "product": "p-%d", "qty": 1, "price": 1000, "currency": "USD"}',
      id, thread_id, n % 5000, n % 300)
  end
  return wrk.format("POST", "/events", nil, table.concat(lines, "\n") .. "\n")
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format("requests %d, errors %d, events/s %.0f, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms\n",
    summary.requests, summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.requests * events / seconds,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency:percentile(99.9) / 1000))
end
