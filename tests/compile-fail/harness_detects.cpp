// expect: harness sentinel
// Harness control: must fail to compile, and the harness must find the text.
static_assert(false, "harness sentinel");

int main() { return 0; }
