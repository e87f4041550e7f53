// covcheck: prints the user cover points of a (merged) Verilator coverage
// file and fails when a required point was never hit.
// Usage: covcheck COVERAGE.dat REQUIRED.txt
//   REQUIRED.txt: one cover point name per line (the label of the
//   `cover property`), '#' comments. A name ending in '*' matches a prefix.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

struct Point {
  std::string name, where;
  unsigned long long hits = 0;
};

static std::map<std::string, std::string> fields(const std::string &key) {
  std::map<std::string, std::string> f;
  size_t i = 0;
  while (i < key.size()) {
    if (key[i] != '\x01') { i++; continue; }
    size_t k = key.find('\x02', i);
    size_t e = key.find('\x01', i + 1);
    if (k == std::string::npos) break;
    f[key.substr(i + 1, k - i - 1)] = key.substr(k + 1, (e == std::string::npos ? key.size() : e) - k - 1);
    i = (e == std::string::npos) ? key.size() : e;
  }
  return f;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: covcheck COVERAGE.dat REQUIRED.txt\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) { fprintf(stderr, "covcheck: cannot read %s\n", argv[1]); return 2; }
  std::map<std::string, Point> pts;  // by name
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("C '", 0) != 0) continue;
    size_t q = line.rfind('\'');
    std::string key = line.substr(3, q - 3);
    unsigned long long n = std::stoull(line.substr(q + 1));
    auto f = fields(key);
    if (f["page"].rfind("v_user", 0) != 0) continue;
    std::string name = f["o"];
    Point &p = pts[name];
    p.name = name;
    std::string file = f["f"];
    size_t sl = file.rfind('/');
    if (sl != std::string::npos) file = file.substr(sl + 1);
    p.where = file + ":" + f["l"];
    p.hits += n;
  }
  std::ifstream rq(argv[2]);
  if (!rq) { fprintf(stderr, "covcheck: cannot read %s\n", argv[2]); return 2; }
  std::vector<std::string> req;
  while (std::getline(rq, line)) {
    size_t h = line.find('#');
    if (h != std::string::npos) line = line.substr(0, h);
    std::istringstream ss(line);
    std::string w;
    if (ss >> w) req.push_back(w);
  }
  int missing = 0;
  printf("%-40s %-28s %12s  %s\n", "cover point", "source", "hits", "status");
  std::map<std::string, bool> required;
  for (auto &r : req) {
    bool prefix = r.back() == '*';
    std::string stem = prefix ? r.substr(0, r.size() - 1) : r;
    bool any = false;
    for (auto &kv : pts) {
      bool m = prefix ? kv.first.rfind(stem, 0) == 0 : kv.first == stem;
      if (!m) continue;
      any = true;
      required[kv.first] = true;
    }
    if (!any) {
      printf("%-40s %-28s %12s  MISSING (no such cover point)\n", r.c_str(), "-", "-");
      missing++;
    }
  }
  for (auto &kv : pts) {
    bool req_p = required.count(kv.first) != 0;
    const char *st = !req_p ? "(not required)" : kv.second.hits ? "ok" : "NOT HIT";
    if (req_p && !kv.second.hits) missing++;
    printf("%-40s %-28s %12llu  %s\n", kv.first.c_str(), kv.second.where.c_str(), kv.second.hits, st);
  }
  if (missing) {
    printf("covcheck: %d required cover point(s) missing or never hit\n", missing);
    return 1;
  }
  printf("covcheck: all %zu required cover points hit\n", required.size());
  return 0;
}
