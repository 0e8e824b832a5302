// What slipway doctor found (see header).
#include "doctor_report.hpp"

#include <algorithm>

namespace slipway::cli {

void DoctorReport::ok(std::string host, std::string check, std::string what) {
  findings_.push_back({Finding::Kind::ok, std::move(host), std::move(check), std::move(what), {}});
}

void DoctorReport::problem(std::string host, std::string check, std::string what, std::string fix) {
  findings_.push_back({Finding::Kind::problem, std::move(host), std::move(check), std::move(what), std::move(fix)});
}

void DoctorReport::skipped(std::string host, std::string check, std::string why) {
  findings_.push_back({Finding::Kind::skipped, std::move(host), std::move(check), std::move(why), {}});
}

void DoctorReport::add(const std::vector<Finding>& findings) {
  findings_.insert(findings_.end(), findings.begin(), findings.end());
}

std::size_t DoctorReport::problems() const {
  return static_cast<std::size_t>(std::count_if(findings_.begin(), findings_.end(),
                                                [](const Finding& f) { return f.kind == Finding::Kind::problem; }));
}

void DoctorReport::print(std::FILE* out) const {
  std::size_t host_width = 4, check_width = 5;
  for (const Finding& f : findings_) {
    host_width = std::max(host_width, f.host.size());
    check_width = std::max(check_width, f.check.size());
  }
  for (const Finding& f : findings_) {
    const char* kind = f.kind == Finding::Kind::ok ? "OK" : f.kind == Finding::Kind::problem ? "PROBLEM" : "SKIPPED";
    std::fprintf(out, "%-8s %-*s %-*s %s\n", kind, static_cast<int>(host_width), f.host.c_str(),
                 static_cast<int>(check_width), f.check.c_str(), f.what.c_str());
    if (f.kind == Finding::Kind::problem && !f.fix.empty()) {
      std::fprintf(out, "%-8s %-*s %-*s fix: %s\n", "", static_cast<int>(host_width), "", static_cast<int>(check_width),
                   "", f.fix.c_str());
    }
  }
  const std::size_t n = problems();
  if (n == 0) {
    std::fprintf(out, "slipway doctor: all is well (%zu checks)\n", findings_.size());
  } else {
    std::fprintf(out, "slipway doctor: %zu problem%s found\n", n, n == 1 ? "" : "s");
  }
}

}  // namespace slipway::cli
