module tgfast.bench/go_echo

go 1.22
