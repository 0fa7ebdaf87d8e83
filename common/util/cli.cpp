#include "util/cli.hpp"

#include <iostream>

#include "util/parse.hpp"
#include "util/spec.hpp"
#include "workload/models.hpp"

namespace los {

int run_cli(const std::string& prog, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return 2;
  } catch (const SpecError& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return 2;
  } catch (const ModelError& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace los
