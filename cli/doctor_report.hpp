// What `slipway doctor` found: one line per check and host, a problem with
// what is wrong and the fix, printed as a table; the exit status is 0 only
// when nothing is wrong.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace slipway::cli {

struct Finding {
  enum class Kind { ok, problem, skipped };
  Kind kind = Kind::ok;
  std::string host;
  std::string check;  // plugin, munge, ports, ucx, python, run-root, versions, plugstack, srun
  std::string what;
  std::string fix;    // problems only
};

class DoctorReport {
 public:
  void ok(std::string host, std::string check, std::string what);
  void problem(std::string host, std::string check, std::string what, std::string fix);
  void skipped(std::string host, std::string check, std::string why);
  void add(const std::vector<Finding>& findings);

  const std::vector<Finding>& findings() const { return findings_; }
  std::size_t problems() const;
  // OK / PROBLEM / SKIPPED, host, check, what; each problem's fix under it;
  // then a summary line.
  void print(std::FILE* out) const;
  int exit_code() const { return problems() == 0 ? 0 : 1; }

 private:
  std::vector<Finding> findings_;
};

}  // namespace slipway::cli
