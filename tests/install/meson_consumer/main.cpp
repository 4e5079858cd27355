// Built against the installed headers only (see tests/install/check.sh).
#include <fluxion/config/version.hpp>

#include <cstdio>
#include <cstring>

int main() {
  std::printf("fluxion %s\n", fluxion::version_string);
  return std::strcmp(fluxion::version_string, FLUXION_VERSION_STRING) == 0 ? 0 : 1;
}
