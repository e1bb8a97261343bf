#include "calibration/nccl_tests_log.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/input_file.h"

namespace gpuplan {
namespace {

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool parse_number(std::string_view token, double& value) {
  if (token.empty() || token.size() > 64) return false;
  const std::string s(token);
  char* end = nullptr;
  value = std::strtod(s.c_str(), &end);
  // Finite and below 1e18: anything larger is not a size, time or rate nccl-tests prints.
  return end == s.c_str() + s.size() && std::isfinite(value) && std::fabs(value) < 1e18;
}

bool starts_numeric(std::string_view token) {
  return !token.empty() && ((token[0] >= '0' && token[0] <= '9'));
}

// "all_reduce_perf" (also with a path or "_mpi" suffix) -> the op; false for other names.
bool op_from_test_name(std::string_view name, CollectiveOp& op, bool& known_unsupported) {
  known_unsupported = false;
  const auto slash = name.rfind('/');
  if (slash != std::string_view::npos) name = name.substr(slash + 1);
  const auto perf = name.find("_perf");
  if (perf == std::string_view::npos) return false;
  const std::string_view base = name.substr(0, perf);
  if (base == "all_reduce") op = CollectiveOp::all_reduce;
  else if (base == "all_gather") op = CollectiveOp::all_gather;
  else if (base == "reduce_scatter") op = CollectiveOp::reduce_scatter;
  else if (base == "alltoall") op = CollectiveOp::all_to_all;
  else if (base == "broadcast") op = CollectiveOp::broadcast;
  else if (base == "sendrecv") op = CollectiveOp::send_recv;
  else {
    known_unsupported = base == "reduce" || base == "gather" || base == "scatter" || base == "hypercube";
    return false;
  }
  return true;
}

bool is_header_start(std::string_view line) {
  return line.find("# nThread") != std::string_view::npos ||
         line.find("# Collective test starting") != std::string_view::npos ||
         line.find("# Using devices") != std::string_view::npos;
}

struct LogReader {
  explicit LogReader(const std::string& f) : file(f) {}
  const std::string& file;
  NcclTestsLog log;
  NcclTestsRun run;
  bool in_run = false;
  bool have_op = false;
  std::set<std::string> hosts;

  [[noreturn]] void fail(int line, const std::string& message) const {
    throw Error(fmt::format("{}:{}: {}", file, line, message));
  }

  void start(int line) {
    finish();
    run = NcclTestsRun{};
    run.line = line;
    in_run = true;
    have_op = false;
    hosts.clear();
  }

  // Which op a run without a test name ran: nccl-tests prints busbw = algbw x factor, and the
  // factor with redop and root tells all_reduce, reduce_scatter and broadcast apart.
  void infer_op() {
    const NcclTestsRow* r = nullptr;
    for (const auto& row : run.rows) {
      if (row.algbw_bytes_per_s > 0 && row.busbw_bytes_per_s > 0) {
        r = &row;
        break;
      }
    }
    const std::string why =
        "the log does not name the test (keep the '# Collective test starting: all_reduce_perf' line, or the "
        "command line with the *_perf binary, above the table)";
    if (!r || run.ranks < 2) fail(run.line, why);
    const double n = run.ranks;
    const double ratio = r->busbw_bytes_per_s / r->algbw_bytes_per_s;
    const auto near = [&](double f) { return std::fabs(ratio - f) <= 0.02 * f + 0.01; };
    if (near(2 * (n - 1) / n) && r->redop != "none") {
      run.op = CollectiveOp::all_reduce;
    } else if (near((n - 1) / n) && r->redop != "none") {
      run.op = CollectiveOp::reduce_scatter;
    } else if (near(1.0) && r->root >= 0 && r->redop == "none") {
      run.op = CollectiveOp::broadcast;
    } else {
      fail(r->line, why + "; its columns fit all_gather and alltoall alike");
    }
    run.op_from = "columns";
  }

  void finish() {
    if (!in_run) return;
    in_run = false;
    if (run.rows.empty()) return;  // a header with no table (a run that failed to start)
    if (run.ranks == 0) {
      fail(run.line,
           "no '#  Rank  0 Group  0 Pid ... on HOST device 0 [...] GPU NAME' lines in this run's header; keep the "
           "whole nccl-tests output, header included");
    }
    run.hosts = static_cast<int>(hosts.size());
    if (!have_op) infer_op();
    log.runs.push_back(std::move(run));
  }

  void rank_line(int line_no, const std::vector<std::string_view>& t) {
    // "#" "Rank" r "Group" g "Pid" p "on" HOST "device" d "[bus]" NAME...
    if (t.size() < 11 || t[1] != "Rank" || t[3] != "Group" || t[5] != "Pid" || t[7] != "on" || t[9] != "device") {
      fail(line_no, "a '#  Rank' line must read '#  Rank R Group G Pid P on HOST device D [BUS] GPU NAME'");
    }
    double rank = 0;
    if (!parse_number(t[2], rank) || rank < 0 || rank != std::floor(rank) || rank > 1e7) {
      fail(line_no, fmt::format("rank '{}' is not a whole number", t[2]));
    }
    if (!in_run || !run.rows.empty()) start(line_no);  // a header after a table: a new run
    ++run.ranks;
    hosts.insert(std::string(t[8]));
    if (run.gpu_name.empty()) {
      // After "device D" comes the bus id in brackets ("[0x18]", "[0000:18:00.0]"), then the name.
      const std::size_t first = t.size() > 11 && t[11].front() == '[' ? 12 : 11;
      std::string name;
      for (std::size_t i = first; i < t.size(); ++i) {
        if (!name.empty()) name += ' ';
        name += t[i];
      }
      run.gpu_name = name;
    }
  }

  void data_line(int line_no, const std::vector<std::string_view>& t) {
    // 13 columns: size count type redop root | time algbw busbw #wrong | same in-place.
    // 12: a release without the root column. 9: out-of-place only.
    std::size_t k = 0;
    bool has_root = true;
    bool in_place = true;
    if (t.size() == 13) {
    } else if (t.size() == 12) {
      has_root = false;
    } else if (t.size() == 9) {
      in_place = false;
    } else {
      fail(line_no, fmt::format("a result line has {} columns; nccl-tests prints 13 (size count type redop root, "
                                "then time algbw busbw #wrong out-of-place and in-place), 12 without root, or 9",
                                t.size()));
    }
    if (!in_run || run.ranks == 0) {
      fail(line_no, "a result line before any '#  Rank ...' header line; keep the nccl-tests header above the table");
    }
    NcclTestsRow r;
    r.line = line_no;
    const auto num = [&](std::size_t i, const char* column) {
      double v = 0;
      if (!parse_number(t[i], v) || v < 0) {
        fail(line_no, fmt::format("column {} ('{}'): '{}' is not a non-negative number", i + 1, column, t[i]));
      }
      return v;
    };
    const auto wrong = [&](std::size_t i) {
      if (t[i] == "N/A") return;  // -c 0: not checked
      if (!has_root) return;      // releases without root print the largest relative error here, not a count
      double v = 0;
      if (!parse_number(t[i], v)) fail(line_no, fmt::format("column {} ('#wrong'): '{}' is not a count", i + 1, t[i]));
      if (v != 0) {
        fail(line_no, fmt::format("nccl-tests found {} wrong results in this run; a failing run's time is not a "
                                  "measurement (fix the run, or delete the line)",
                                  t[i]));
      }
    };
    r.bytes = num(k++, "size");
    r.count = num(k++, "count");
    r.type = std::string(t[k++]);
    r.redop = std::string(t[k++]);
    if (has_root) {
      double root = 0;
      if (!parse_number(t[k], root) || root != std::floor(root) || root < -1 || root > 1e7) {
        fail(line_no, fmt::format("column {} ('root'): '{}' is not a rank or -1", k + 1, t[k]));
      }
      r.root = static_cast<int>(root);
      ++k;
    }
    r.time_s = num(k++, "time") * 1e-6;
    r.algbw_bytes_per_s = num(k++, "algbw") * 1e9;
    r.busbw_bytes_per_s = num(k++, "busbw") * 1e9;
    wrong(k++);
    if (in_place) {
      r.in_place_time_s = num(k++, "in-place time") * 1e-6;
      k += 2;  // in-place algbw, busbw
      num(k - 2, "in-place algbw");
      num(k - 1, "in-place busbw");
      wrong(k++);
    }
    if (!(r.bytes > 0) || !(r.time_s > 0)) return;  // nccl-tests prints size 0 lines: nothing to time
    run.rows.push_back(r);
  }
};

}  // namespace

bool looks_like_nccl_tests_log(std::string_view text) {
  return text.find("# nThread") != std::string_view::npos || text.find("# Using devices") != std::string_view::npos ||
         text.find("#  Rank") != std::string_view::npos ||
         text.find("# Collective test starting") != std::string_view::npos;
}

NcclTestsLog parse_nccl_tests_log(std::string_view text, const std::string& file) {
  LogReader b(file);
  b.log.file = file;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    ++line_no;
    pos = end + 1;
    if (line.size() > 100000) b.fail(line_no, "line longer than 100,000 characters; this is not nccl-tests output");
    const auto t = split_ws(line);
    if (t.empty()) {
      if (end == text.size()) break;
      continue;
    }
    if (line.find("NCCL INFO") != std::string_view::npos || line.find("NCCL WARN") != std::string_view::npos) continue;
    // A header line after a table starts the next run (runs concatenated in one file).
    if (is_header_start(line) && (!b.in_run || !b.run.rows.empty())) b.start(line_no);
    // A test name anywhere before the table ("# Collective test starting: all_reduce_perf",
    // or the command line that ran it).
    for (std::string_view tok : t) {
      CollectiveOp op{};
      bool unsupported = false;
      if (op_from_test_name(tok, op, unsupported)) {
        if (b.in_run && !b.run.rows.empty()) b.start(line_no);
        if (!b.in_run) b.start(line_no);
        b.run.op = op;
        b.run.op_from = "header";
        b.have_op = true;
        break;
      }
      if (unsupported) {
        b.fail(line_no, fmt::format("'{}': gpuplan models all_reduce, all_gather, reduce_scatter, alltoall, "
                                    "broadcast and sendrecv; drop this run from the log",
                                    tok));
      }
    }
    if (t[0] == "#" && t.size() > 1 && t[1] == "Rank") {
      b.rank_line(line_no, t);
      continue;
    }
    if (t[0][0] == '#') continue;
    if (starts_numeric(t[0]) && t.size() >= 5) {
      b.data_line(line_no, t);
      continue;
    }
    // Anything else (a shell prompt, a banner) is not part of the measurement.
    if (end == text.size()) break;
  }
  b.finish();
  if (b.log.runs.empty()) {
    throw Error(fmt::format("{}: no nccl-tests results found (no '#  Rank' header followed by a size/count/type "
                            "table); give the output of all_reduce_perf, all_gather_perf, ... as printed",
                            file));
  }
  return std::move(b.log);
}

NcclTestsLog load_nccl_tests_log(const std::string& path) {
  return parse_nccl_tests_log(read_input_file(path, "nccl-tests log"), path);
}

CalibrationProfile nccl_tests_profile(const NcclTestsLog& log) {
  CalibrationProfile p;
  p.file = log.file;
  p.tool = "nccl-tests";
  for (const NcclTestsRun& run : log.runs) {
    if (p.gpu_name.empty()) p.gpu_name = run.gpu_name;
    const std::string op = profile_collective_name(run.op);
    if (op.empty()) continue;  // broadcast, sendrecv: no calibrated curve for them
    for (const NcclTestsRow& row : run.rows) {
      CollectivePoint c;
      c.op = op;
      c.gpus = run.ranks;
      c.bytes = row.bytes;
      c.time_s = row.time_s;
      c.algbw_bytes_per_s = row.bytes / row.time_s;
      c.busbw_bytes_per_s = c.algbw_bytes_per_s * collective_bus_factor(op, run.ranks);
      c.line = row.line;
      p.collectives.push_back(c);
    }
  }
  return p;
}

CalibrationProfile load_collective_calibration(const std::string& path) {
  const std::string text = read_input_file(path, "calibration file");
  if (looks_like_nccl_tests_log(text)) return nccl_tests_profile(parse_nccl_tests_log(text, path));
  return load_calibration(path);
}

bool profile_is_collectives_only(const CalibrationProfile& profile) {
  return profile.tool == "nccl-tests" && profile.gemm.empty() && profile.memory_bandwidth.empty();
}

}  // namespace gpuplan
