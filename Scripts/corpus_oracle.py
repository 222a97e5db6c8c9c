"""What the differential oracles of Strata's parsers share (Scripts/toml-oracle.py, Scripts/yaml-oracle.py):
the seeded generator's mutants, and the collect / generate / expect / check commands."""
import os
import random
import shutil
import sys


def mutate(rng, text, alphabet):
    """A copy of a document with one byte dropped, doubled or replaced by one of `alphabet`."""
    data = bytearray(text.encode())
    if not data:
        return bytes(data)
    at = rng.randrange(len(data))
    roll = rng.random()
    if roll < 0.4:
        del data[at]
    elif roll < 0.7:
        data.insert(at, data[at])
    else:
        data[at] = ord(rng.choice(alphabet))
    return bytes(data)


def generate(corpus, extension, gen_document, alphabet, count=300, seed=24):
    """Writes generated/doc-NNN.EXT (seeded random documents) and mutant-NNN.EXT (each mutated once)."""
    target = os.path.join(corpus, "generated")
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    rng = random.Random(seed)
    for number in range(count):
        text = gen_document(rng)
        with open(os.path.join(target, "doc-%03d.%s" % (number, extension)), "wb") as f:
            f.write(text.encode())
        with open(os.path.join(target, "mutant-%03d.%s" % (number, extension)), "wb") as f:
            f.write(mutate(rng, text, alphabet))


def main(argv, usage, script, oracle, oracle_text, collect, generate_corpus):
    """The commands: collect DIR..., generate, expect, check."""
    command = argv[1] if len(argv) > 1 else ""
    if command == "collect":
        collect(argv[2:])
    elif command == "generate":
        generate_corpus()
    elif command == "expect":
        open(oracle, "w").write(oracle_text())
    elif command == "check":
        if open(oracle).read() != oracle_text():
            print("oracle.json is out of date: run Scripts/%s expect" % script, file=sys.stderr)
            return 1
    else:
        print(usage, file=sys.stderr)
        return 2
    return 0
