// The driver lists its subcommands and exits 0; an unknown one is an error with exit 2.
// RUN: gcnforge --help | filecheck %s
// RUN: not gcnforge no-such-command 2>&1 | filecheck %s --check-prefix=BAD
// CHECK: usage: gcnforge
// BAD: invalid choice
