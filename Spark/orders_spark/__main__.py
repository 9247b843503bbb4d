"""python -m orders_spark DIR --binary ORDERS [--out OUTDIR | --print WHAT]

Runs the passes of a dataset's fold (orders part claims / select / decide /
fold / merge) as Spark tasks: one task a part for each pass over the parts;
the order ids that more than one part uses counted in a shuffle
(reduceByKey), so that only the checkouts they reach go to the small ordered
pass on the driver; and the parts' sums added in a tree (about √parts groups
added on the executors, then those few on the driver), never all on the
driver. Every task is a pure function of its inputs (the part's
files, the contested ids, the notes), so Spark may retry it or run it twice
(speculation) and the answers do not change.

The dataset's directory must be readable at the same path by every executor
(a shared filesystem, or the same copy on each machine); the binary is
shipped to the executors with the job.
"""
import argparse
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import zlib

OUTPUTS = ["daily", "products", "replay", "tally"]


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="python -m orders_spark",
        description="Replay an orders dataset on Apache Spark; prints what the CLI prints.",
        epilog="Example: python -m orders_spark store.dataset --binary .build/release/orders --print daily")
    parser.add_argument("dataset", help="the dataset's directory (orders import --partitions P DIR ...)")
    parser.add_argument("--binary", required=True, help="the orders binary to ship to the executors")
    parser.add_argument("--master", default=None, help="Spark master, e.g. local[2] or local[2,4] (4 attempts a task); "
                        "default: spark-submit's, else local[2]")
    parser.add_argument("--print", dest="what", choices=OUTPUTS, help="print one output to standard output")
    parser.add_argument("--out", help="write every output into this directory: replay.json, daily.csv, products.csv, tally.csv")
    parser.add_argument("--tz", default="UTC", help="the IANA zone in which dates are counted (as --tz of orders report)")
    parser.add_argument("--fail-once", metavar="MARKER", help=argparse.SUPPRESS)
    parser.add_argument("--fail-part", type=int, default=0, help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    if (arguments.what is None) == (arguments.out is None):
        parser.error("give --print WHAT or --out DIR")
    return arguments


def run(command, input_bytes=None):
    """Runs an orders command; its standard output, or an error naming the command and what it said."""
    done = subprocess.run(command, input=input_bytes, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if done.returncode != 0:
        raise RuntimeError("%s exited with %d: %s" % (" ".join(command), done.returncode, done.stderr.decode(errors="replace")))
    return done.stdout


def shipped_binary(name):
    """The binary as Spark shipped it to this executor."""
    from pyspark import SparkFiles
    path = SparkFiles.get(name)
    if not os.access(path, os.X_OK):
        os.chmod(path, 0o755)
    return path


def claims_task(dataset, name):
    def task(part):
        return part, run([shipped_binary(name), "part", "claims", dataset, "--part", str(part)])
    return task


def claimed_orders(buckets):
    """One part's distinct order ids (hex, as its claims spell them), dealt into `buckets` by a CRC-32
    of their bytes (the same in every process, unlike Python's hash): (bucket, ids a line) pairs, so that
    the shuffle moves a few blobs a part rather than a record an id."""
    def task(part_and_text):
        _, text = part_and_text
        ids = set()
        for line in text.split(b"\n")[2:]:
            if line:
                ids.add(line.split(b"\t", 2)[1])
        dealt = {}
        for order in ids:
            dealt.setdefault(zlib.crc32(order) % buckets, []).append(order)
        return [(bucket, b"\n".join(orders)) for bucket, orders in dealt.items()]
    return task


def repeated(blob):
    """The ids met more than once in a bucket's blob: each part listed an id once, so those are in two parts or more."""
    seen, twice = set(), set()
    for order in blob.split(b"\n"):
        if order in seen:
            twice.add(order)
        seen.add(order)
    return list(twice)


def claim_count(text):
    """The claims in a claims text: its lines less the two that name it."""
    return text.count(b"\n") - 2


def select_task(name, contested):
    def task(part_and_text):
        part, text = part_and_text
        with tempfile.NamedTemporaryFile(prefix="orders-claims-") as claims, \
                tempfile.NamedTemporaryFile(prefix="orders-contested-") as ids:
            claims.write(text)
            claims.flush()
            ids.write(contested.value)
            ids.flush()
            return part, run([shipped_binary(name), "part", "select", claims.name, "--contested", ids.name])
    return task


def merge_task(name, tz):
    """Adds the sums (bytes) of one partition into one, in one process: a step of the tree."""
    def task(texts):
        texts = list(texts)
        if len(texts) < 2:
            return texts
        with tempfile.TemporaryDirectory(prefix="orders-sums-") as scratch:
            paths = []
            for index, text in enumerate(texts):
                paths.append(os.path.join(scratch, "sums-%d" % index))
                with open(paths[-1], "wb") as file:
                    file.write(text)
            return [run([shipped_binary(name), "part", "merge"] + paths + ["--print", "reports", "--tz", tz])]
    return task


def fold_task(dataset, name, notes, tz, fail_once, fail_part):
    def task(part):
        binary = shipped_binary(name)
        if fail_once and part == fail_part and not os.path.exists(fail_once):
            # The injected failure: the binary is killed mid-task, once; Spark runs the task again.
            open(fail_once, "w").close()
            process = subprocess.Popen([binary, "part", "fold", dataset, "--part", str(part), "--notes", "/dev/stdin"],
                                       stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            raise RuntimeError("orders part fold --part %d was killed (exit %d): an injected failure" % (part, process.returncode))
        with tempfile.NamedTemporaryFile(prefix="orders-notes-") as file:
            file.write(notes.value)
            file.flush()
            return part, run([binary, "part", "fold", dataset, "--part", str(part), "--notes", file.name, "--tz", tz])
    return task


def keep(scratch, kind, results):
    """Writes each part's text of (part, text) results to scratch/kind-PART, in part order; their paths."""
    paths = []
    for part, text in sorted(results):
        path = os.path.join(scratch, "%s-%d" % (kind, part))
        with open(path, "wb") as file:
            file.write(text)
        paths.append(path)
    return paths


def main(argv=None):
    arguments = parse_arguments(sys.argv[1:] if argv is None else argv)
    dataset = os.path.abspath(arguments.dataset)
    binary = os.path.abspath(arguments.binary)
    with open(os.path.join(dataset, "manifest.json")) as file:
        manifest = json.load(file)
    parts = [index for index, part in enumerate(manifest["parts"]) if part["events"] > 0]

    from pyspark import SparkConf
    from pyspark.sql import SparkSession
    started = time.monotonic()
    # spark-submit's --master, else --master, else two local cores.
    conf = SparkConf()
    if arguments.master or not conf.contains("spark.master"):
        conf.setMaster(arguments.master or "local[2]")
    conf.setAppName("orders replay %s" % os.path.basename(dataset))
    # Standard output is for the answers, standard error for one line of figures; no progress bars, no web UI.
    conf.set("spark.ui.showConsoleProgress", "false")
    conf.setIfMissing("spark.ui.enabled", "false")
    spark = SparkSession.builder.config(conf=conf).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    context = spark.sparkContext
    context.addFile(binary)
    name = os.path.basename(binary)
    session = time.monotonic() - started

    with tempfile.TemporaryDirectory(prefix="orders-spark-") as scratch:
        began = time.monotonic()
        slices = max(1, len(parts))
        stages = []
        mark = time.monotonic()

        def stage(label):
            nonlocal mark
            now = time.monotonic()
            stages.append("%s %.1f s" % (label, now - mark))
            mark = now

        claims = context.parallelize(parts, slices).map(claims_task(dataset, name)).cache()
        checkouts = claims.map(lambda pair: claim_count(pair[1])).sum()
        stage("claims")
        # The shuffle: every order id once a part, counted across parts; those of more than one are contested.
        contested = sorted(claims.flatMap(claimed_orders(slices)).reduceByKey(lambda a, b: a + b"\n" + b, slices)
                           .flatMap(lambda pair: repeated(pair[1])).collect())
        stage("contested")
        contested_text = context.broadcast(b"orders-contested\t1\n" + b"".join(order + b"\n" for order in contested))
        sent = claims.map(select_task(name, contested_text)).collect()
        claims.unpersist()
        stage("select")
        ordered = sum(claim_count(text) for _, text in sent)
        sent_files = keep(scratch, "sent", sent)
        notes = run([binary, "part", "decide"] + sent_files) if sent_files else b"orders-notes\t1\n"
        stage("decide")
        broadcast = context.broadcast(notes)
        folded = context.parallelize(parts, slices).map(
            fold_task(dataset, name, broadcast, arguments.tz, arguments.fail_once, arguments.fail_part))
        # The sums added in a tree: the parts' texts in about √parts groups, each added up by one task in one
        # process; the driver adds the groups' few.
        groups = max(1, int(math.ceil(math.sqrt(len(parts)))))
        merged = folded.map(lambda pair: pair[1]).repartition(groups).mapPartitions(merge_task(name, arguments.tz)).collect()
        stage("fold and merge")
        report_files = keep(scratch, "reports", list(enumerate(merged)))
        if arguments.out:
            os.makedirs(arguments.out, exist_ok=True)
            run([binary, "part", "merge"] + report_files + ["--out", arguments.out, "--tz", arguments.tz])
        else:
            sys.stdout.buffer.write(run([binary, "part", "merge"] + report_files + ["--print", arguments.what, "--tz", arguments.tz]))
        stage("print")
        job = time.monotonic() - began
    sys.stderr.write("orders_spark: %d parts, %d events, %d checkouts, %d order ids in more than one part, "
                     "%d checkouts ordered on the driver, %d order ids taken first in another part; "
                     "session %.1f s, job %.1f s (%s)\n" % (len(parts), manifest["events"], checkouts, len(contested),
                                                         ordered, notes.count(b"\n") - 1, session, job, ", ".join(stages)))
    spark.stop()


if __name__ == "__main__":
    main()
