#include "report.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace los {

std::vector<PolicyReport> build_reports(const std::vector<SimResult>& results, double bsld_tau, std::size_t batches) {
  std::vector<PolicyReport> out;
  if (results.empty()) return out;
  auto columns = [&](const SimResult& r) {
    const std::vector<JobMetrics> m = job_metrics(r, bsld_tau);
    std::vector<double> w, resp, b;
    w.reserve(m.size());
    resp.reserve(m.size());
    b.reserve(m.size());
    for (const JobMetrics& x : m) {
      w.push_back(x.wait);
      resp.push_back(x.response);
      b.push_back(x.bounded_slowdown);
    }
    return std::array<std::vector<double>, 3>{std::move(w), std::move(resp), std::move(b)};
  };
  const auto base = columns(results.front());
  for (std::size_t i = 0; i < results.size(); ++i) {
    PolicyReport rep;
    rep.summary = summarize(results[i], bsld_tau);
    if (i > 0) {
      const auto other = columns(results[i]);
      rep.vs_baseline.wait = paired_difference(base[0], other[0], batches);
      rep.vs_baseline.response = paired_difference(base[1], other[1], batches);
      rep.vs_baseline.bsld = paired_difference(base[2], other[2], batches);
    }
    out.push_back(std::move(rep));
  }
  return out;
}

namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string interval(const PairedDifference& d) {
  return fixed(d.mean, 1) + " [" + fixed(d.low(), 1) + ", " + fixed(d.high(), 1) + "]";
}

// Prints rows of cells as aligned columns: each column as wide as its widest
// cell, columns two spaces apart, columns from `right_aligned_from` on
// right-aligned, no trailing spaces.
void print_columns(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                   std::size_t right_aligned_from) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string pad(width[i] - row[i].size(), ' ');
      if (i > 0) line += "  ";
      line += i >= right_aligned_from ? pad + row[i] : (i + 1 < row.size() ? row[i] + pad : row[i]);
    }
    out << line << "\n";
  }
}

}  // namespace

void print_table(std::ostream& out, const RunInfo& info, const std::vector<PolicyReport>& reports) {
  out << "workload  " << info.workload << "\n";
  out << "machine   " << info.units << " units, " << info.jobs - info.withdrawn << " jobs";
  if (info.withdraw) out << " + " << info.withdrawn << " records withdrawn by their users";
  out << " (" << info.dropped << " dropped), offered load " << fixed(info.offered_load, 3)
      << (info.kill_at_estimate ? ", jobs killed at their estimate" : ", jobs may overrun their estimate") << "\n\n";

  struct Row {
    const char* label;
    std::string (*value)(const Summary&);
  };
  static const Row rows[] = {
      {"mean wait (s)", [](const Summary& s) { return fixed(s.mean_wait, 0); }},
      {"p50 wait (s)", [](const Summary& s) { return fixed(s.p50_wait, 0); }},
      {"p90 wait (s)", [](const Summary& s) { return fixed(s.p90_wait, 0); }},
      {"p99 wait (s)", [](const Summary& s) { return fixed(s.p99_wait, 0); }},
      {"mean response (s)", [](const Summary& s) { return fixed(s.mean_response, 0); }},
      {"mean slowdown", [](const Summary& s) { return fixed(s.mean_slowdown, 2); }},
      {"mean bounded slowdown", [](const Summary& s) { return fixed(s.mean_bsld, 2); }},
      {"utilization", [](const Summary& s) { return fixed(s.utilization, 3); }},
      {"loss of capacity", [](const Summary& s) { return fixed(s.loss_of_capacity, 3); }},
      {"makespan (s)", [](const Summary& s) { return fixed(s.makespan, 0); }},
      {"fairness F", [](const Summary& s) { return fixed(s.fairness_F, 3); }},
      {"mean NUWT", [](const Summary& s) { return fixed(s.mean_nuwt, 3); }},
      {"mean queue length", [](const Summary& s) { return fixed(s.mean_queue_length, 1); }},
      {"jobs killed at estimate", [](const Summary& s) { return std::to_string(s.killed); }},
      {"simulation time (s)", [](const Summary& s) { return fixed(s.wall_seconds, 3); }},
  };
  // Every column sized to its widest cell, two spaces apart, so wide values
  // (a fairness F of 10^10 on a saturated trace) never run into each other.
  std::vector<std::vector<std::string>> table;
  table.push_back({"metric"});
  for (const PolicyReport& r : reports) table.back().push_back(r.summary.policy);
  for (const Row& row : rows) {
    table.push_back({row.label});
    for (const PolicyReport& r : reports) table.back().push_back(row.value(r.summary));
  }
  if (info.withdraw) {
    // What became of the withdrawn records: in no row above but utilization,
    // loss of capacity, makespan and queue length.
    static const Row withdrawn_rows[] = {
        {"withdrawn while waiting", [](const Summary& s) { return std::to_string(s.withdrawn_waiting); }},
        {"withdrawn after start", [](const Summary& s) { return std::to_string(s.withdrawn_started); }},
        {"  of which cut at cancel", [](const Summary& s) { return std::to_string(s.withdrawn_cut); }},
    };
    for (const Row& row : withdrawn_rows) {
      table.push_back({row.label});
      for (const PolicyReport& r : reports) table.back().push_back(row.value(r.summary));
    }
  }
  print_columns(out, table, /*right_aligned_from=*/1);
  if (reports.size() > 1) {
    out << "\npaired per-job differences, " << reports.front().summary.policy
        << " minus each policy (positive: the policy is better);\n"
        << "mean [90% confidence interval from " << reports[1].vs_baseline.wait.batches << " batch means]\n";
    std::vector<std::vector<std::string>> diffs = {{"policy", "wait (s)", "response (s)", "bounded slowdown"}};
    for (std::size_t i = 1; i < reports.size(); ++i) {
      const Comparison& c = reports[i].vs_baseline;
      diffs.push_back({reports[i].summary.policy, interval(c.wait), interval(c.response), interval(c.bsld)});
    }
    print_columns(out, diffs, /*right_aligned_from=*/4);
  }
}

void print_json(std::ostream& out, const RunInfo& info, const std::vector<PolicyReport>& reports) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  auto diff = [](const PairedDifference& d) {
    return nlohmann::ordered_json{
        {"mean", d.mean}, {"ci90_low", d.low()}, {"ci90_high", d.high()}, {"batches", d.batches}};
  };
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const Summary& s = reports[i].summary;
    nlohmann::ordered_json o;
    o["policy"] = s.policy;
    o["workload"] = info.workload;
    o["units"] = info.units;
    o["offered_load"] = info.offered_load;
    o["jobs"] = s.jobs;
    o["dropped"] = s.dropped;
    o["killed"] = s.killed;
    o["mean_wait_s"] = s.mean_wait;
    o["p50_wait_s"] = s.p50_wait;
    o["p90_wait_s"] = s.p90_wait;
    o["p99_wait_s"] = s.p99_wait;
    o["max_wait_s"] = s.max_wait;
    o["mean_response_s"] = s.mean_response;
    o["mean_slowdown"] = s.mean_slowdown;
    o["mean_bsld"] = s.mean_bsld;
    o["bsld_tau_s"] = info.bsld_tau;
    o["utilization"] = s.utilization;
    o["loss_of_capacity"] = s.loss_of_capacity;
    o["makespan_s"] = s.makespan;
    o["fairness_F"] = s.fairness_F;
    o["mean_nuwt"] = s.mean_nuwt;
    o["mean_queue_length"] = s.mean_queue_length;
    if (info.withdraw) {
      o["cancelled"] = "withdraw";
      o["withdrawn_records"] = info.withdrawn;
      o["withdrawn_waiting"] = s.withdrawn_waiting;
      o["withdrawn_started"] = s.withdrawn_started;
      o["withdrawn_cut"] = s.withdrawn_cut;
    }
    o["wall_s"] = s.wall_seconds;
    if (i > 0) {
      const Comparison& c = reports[i].vs_baseline;
      o["vs_baseline"] = {{"baseline", reports.front().summary.policy},
                          {"wait_s", diff(c.wait)},
                          {"response_s", diff(c.response)},
                          {"bsld", diff(c.bsld)}};
    } else {
      o["vs_baseline"] = nullptr;
    }
    all.push_back(std::move(o));
  }
  out << all.dump(2) << "\n";
}

void write_schedule(const std::string& path, const SimResult& r, const Workload& w, const std::string& title) {
  std::ofstream out(path);
  if (!out) throw WorkloadError(path + ": cannot write the schedule");
  std::vector<std::string> header = {title, "Policy: " + r.policy, "Workload: " + w.source,
                                     "MaxProcs: " + std::to_string(w.units)};
  std::vector<SwfRecord> records;
  records.reserve(r.jobs.size());
  for (const JobOutcome& o : r.jobs) {
    SwfRecord rec = swf_record(o.job);
    if (o.withdrawn() && o.start < 0) {
      rec.wait = o.job.cancel_lag;
      rec.runtime = -1;
      rec.status = 5;
      records.push_back(rec);
      continue;
    }
    rec.wait = o.wait();
    rec.runtime = o.executed;
    rec.status = o.cut ? 5 : o.killed ? 0 : 1;
    records.push_back(rec);
  }
  write_swf(out, header, records);
  if (!out) throw WorkloadError(path + ": write failed");
}

}  // namespace los
