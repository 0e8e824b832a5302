// Writes the seeds of fuzz_top_status into DIR: the unit tests' status
// document, small JSON texts of every kind of value, and inputs that once
// found a fault.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name, std::ios::binary) << text;
  };
  std::ifstream fixture(SLIPWAY_TOP_FIXTURE, std::ios::binary);
  std::stringstream text;
  text << fixture.rdbuf();
  if (text.str().empty()) {
    std::fprintf(stderr, "cannot read %s\n", SLIPWAY_TOP_FIXTURE);
    return 1;
  }
  write("status", text.str());
  write("small", R"({"schema":1,"program":"p","nodes":[{"name":"a","tasks":[{"replica":0,"cpu_seconds":1.5}]}]})");
  write("values", R"([0,-1.5e3,true,false,null,"a\u00e9\ud83d\ude00\n",{"k":[{}]}])");
  // A real where an integer is read, too large for one (it once reached an
  // undefined cast in top_model.cpp).
  write("huge_real", R"({"schema":1,"program":"p","nodes":[{"name":"a","tasks":[{"replica":0,"rss_bytes":1.76e88}]}]})");
  return 0;
}
