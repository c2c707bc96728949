# The README's two commands, for those who type `make`. Both work without make:
# scripts/study and scripts/test set up what the machine lacks (as root) and are idempotent.
.PHONY: study test

study:
	scripts/study

test:
	scripts/test
