fn main() {
    std::process::exit(tapflow::cli::main());
}
