// expect-success
// Harness control: a valid program that must compile. If the harness reported
// every case as a compile failure, this case would catch it.
int main() { return 0; }
