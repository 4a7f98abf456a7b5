# Source from .ci/run (bash):  . .ci/llama-build.sh || exit 1
#
# Builds the pinned llama.cpp binaries (bin/build-llama-cpp) and the random-weight test models, then exports what
# the tests marked `llama` read:
#   PHASEWRAP_LLAMA_BIN_DIR  directory with llama-completion, llama-cli, llama-server, llama-bench
#   PHASEWRAP_TINY_GGUF      a few-MB random llama model
#   PHASEWRAP_MOE_GGUF       a few-MB random LFM2-MoE model
#   PHASEWRAP_F16_GGUF       a ~1 GB random f16 llama model (larger than a CPU's last-level cache: decode floors)
# Everything is cached under $PHASEWRAP_CACHE (default ~/.cache/phasewrap); a warm cache takes about a second.
#
# Needs: cmake, g++ (or another C++ compiler), make, tar, python3 with pip, and the test extra (gguf, numpy);
# on Debian: apt-get install -y cmake g++ make python3-pip. No OpenSSL, curl or git is needed.
# PyPI must be reachable on the first run only (the llama-cpp-python sdist is cached). Reads no stdin.

phasewrap_llama_build() {
    local repo_dir build_stdout models_dir script_hash tiny moe f16
    repo_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    export PHASEWRAP_CACHE=${PHASEWRAP_CACHE:-$HOME/.cache/phasewrap}

    # not `| tail -1`: without pipefail in the caller that would hide a failed build
    build_stdout=$("$repo_dir/bin/build-llama-cpp" </dev/null) || {
        echo "llama-build.sh: bin/build-llama-cpp failed (its messages are above)" >&2
        return 1
    }

    # Models are named after the generator's hash, so editing samples/make_tiny_gguf.py regenerates them.
    models_dir=$PHASEWRAP_CACHE/models
    script_hash=$(sha256sum "$repo_dir/samples/make_tiny_gguf.py" | cut -c1-12)
    mkdir -p "$models_dir"
    tiny=$models_dir/tiny-llama-$script_hash.gguf
    moe=$models_dir/tiny-lfm2moe-$script_hash.gguf
    if [[ ! -s $tiny ]]; then
        python3 "$repo_dir/samples/make_tiny_gguf.py" --arch llama -o "$tiny" </dev/null >&2 || return 1
    fi
    if [[ ! -s $moe ]]; then
        python3 "$repo_dir/samples/make_tiny_gguf.py" --arch lfm2moe -o "$moe" </dev/null >&2 || return 1
    fi
    f16=$models_dir/llama-f16-1gb-$script_hash.gguf
    if [[ ! -s $f16 ]]; then
        python3 "$repo_dir/samples/make_tiny_gguf.py" --size-mb 1024 --dtype f16 --seed 3 -o "$f16" </dev/null >&2 || return 1
    fi

    export PHASEWRAP_LLAMA_BIN_DIR=${build_stdout##*$'\n'}
    export PHASEWRAP_TINY_GGUF=$tiny
    export PHASEWRAP_MOE_GGUF=$moe
    export PHASEWRAP_F16_GGUF=$f16
    echo "llama-build.sh: PHASEWRAP_LLAMA_BIN_DIR=$PHASEWRAP_LLAMA_BIN_DIR PHASEWRAP_TINY_GGUF=$tiny PHASEWRAP_MOE_GGUF=$moe" >&2
}

phasewrap_llama_build
