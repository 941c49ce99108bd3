package io.nvmf4j.cli.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * {@code perf --output-format fio-json}: a run in the shape of fio's {@code --output-format=json} (fio 3.x
 * stat.c {@code show_thread_status_json()} / {@code add_ddir_status_json()}), so fio parsers and dashboards read
 * it: {@code jobs[0].read|write|trim} with {@code io_bytes}, {@code io_kbytes}, {@code bw_bytes}, {@code bw} (KiB/s),
 * {@code iops}, {@code runtime} (ms), {@code total_ios}, {@code slat_ns}, {@code clat_ns} with fio's default
 * {@code percentile} map (keys printed with C's {@code %f}: "99.000000"), {@code lat_ns}, and the per-second
 * {@code bw_*} / {@code iops_*} figures.
 *
 * <p>What differs from fio, by necessity: perf measures submit-to-completion, which it reports as {@code clat_ns}
 * and {@code lat_ns} alike ({@code slat_ns} is zero: a submission is a memory write, not a syscall); the per-second
 * samples are of all I/Os, split between read and write by their share of the run; "fio version" names nvmf4j.
 */
public final class FioJson {

    /** fio's default {@code percentile_list}. */
    static final double[] FIO_PERCENTILES = {0.01, 0.05, 0.10, 0.20, 0.30, 0.40, 0.50, 0.60, 0.70, 0.80, 0.90, 0.95,
        0.99, 0.995, 0.999, 0.9995, 0.9999};

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private FioJson() {
    }

    public static ObjectNode document(PerfResult r, String version, long epochMillis) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("fio version", "nvmf4j-" + version);
        root.put("timestamp", epochMillis / 1000);
        root.put("timestamp_ms", epochMillis);
        root.put("time", DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.ROOT)
                .format(ZonedDateTime.ofInstant(java.time.Instant.ofEpochMilli(epochMillis), ZoneId.systemDefault())));
        root.putObject("global options");
        ArrayNode jobs = root.putArray("jobs");
        jobs.add(job(r));
        root.putArray("disk_util");
        return root;
    }

    static ObjectNode job(PerfResult r) {
        ObjectNode job = MAPPER.createObjectNode();
        long runtimeMs = Math.round(r.seconds() * 1000);
        job.put("jobname", r.label());
        job.put("groupid", 0);
        job.put("error", 0);
        job.put("eta", 0);
        job.put("elapsed", Math.round(r.seconds() + r.spec().ramp().toMillis() / 1000.0));
        ObjectNode options = job.putObject("job options");
        options.put("name", r.label());
        options.put("rw", r.spec().workload().label());
        options.put("bs", Integer.toString(r.spec().ioSize()));
        options.put("iodepth", Integer.toString(r.spec().depth()));
        options.put("numjobs", Integer.toString(r.queues()));
        options.put("runtime", Long.toString(r.spec().duration().toSeconds()));
        options.put("ramp_time", Long.toString(r.spec().ramp().toSeconds()));
        if (r.spec().workload().mixed()) {
            options.put("rwmixread", Integer.toString(r.spec().effectiveReadPercent()));
        }
        long allIos = r.read().ios() + r.write().ios();
        job.set("read", direction(r.read(), runtimeMs, share(r.read().ios(), allIos), r));
        job.set("write", direction(r.write(), runtimeMs, share(r.write().ios(), allIos), r));
        job.set("trim", direction(new PerfResult.OpResult(0, 0, 0, 0, LatencyStats.EMPTY), runtimeMs, 0, r));
        ObjectNode sync = job.putObject("sync");
        sync.put("total_ios", 0);
        sync.set("lat_ns", latency(LatencyStats.EMPTY, false));
        job.put("job_runtime", runtimeMs);
        job.put("usr_cpu", 0.0);
        job.put("sys_cpu", 0.0);
        job.put("ctx", 0);
        job.put("majf", 0);
        job.put("minf", 0);
        return job;
    }

    private static double share(long ios, long all) {
        return all == 0 ? 0 : (double) ios / all;
    }

    static ObjectNode direction(PerfResult.OpResult op, long runtimeMs, double share, PerfResult r) {
        ObjectNode d = MAPPER.createObjectNode();
        long bwBytes = runtimeMs > 0 ? op.bytes() * 1000 / runtimeMs : 0;
        d.put("io_bytes", op.bytes());
        d.put("io_kbytes", op.bytes() >> 10);
        d.put("bw_bytes", bwBytes);
        d.put("bw", bwBytes >> 10);
        d.put("iops", op.iops());
        d.put("runtime", op.ios() > 0 ? runtimeMs : 0);
        d.put("total_ios", op.ios());
        d.put("short_ios", 0);
        d.put("drop_ios", 0);
        d.set("slat_ns", latency(LatencyStats.EMPTY, false));
        d.set("clat_ns", latency(op.latency(), true));
        d.set("lat_ns", latency(op.latency(), false));
        // Per-second samples: fio takes them per direction; perf has them for all I/Os, so each direction gets
        // its share of every second.
        double[] perSecond = r.iopsPerSecond();
        double min = Double.MAX_VALUE;
        double max = 0;
        double sum = 0;
        for (double s : perSecond) {
            min = Math.min(min, s * share);
            max = Math.max(max, s * share);
            sum += s * share;
        }
        int n = op.ios() > 0 ? perSecond.length : 0;
        double mean = n > 0 ? sum / n : 0;
        double dev = 0;
        for (int i = 0; i < n; i++) {
            dev += (perSecond[i] * share - mean) * (perSecond[i] * share - mean);
        }
        dev = n > 1 ? Math.sqrt(dev / (n - 1)) : 0;
        if (n == 0) {
            min = 0;
        }
        double kibPerIo = r.spec().ioSize() / 1024.0;
        d.put("bw_min", Math.round(min * kibPerIo));
        d.put("bw_max", Math.round(max * kibPerIo));
        d.put("bw_agg", op.ios() > 0 ? 100.0 : 0.0);
        d.put("bw_mean", mean * kibPerIo);
        d.put("bw_dev", dev * kibPerIo);
        d.put("bw_samples", n);
        d.put("iops_min", Math.round(min));
        d.put("iops_max", Math.round(max));
        d.put("iops_mean", mean);
        d.put("iops_stddev", dev);
        d.put("iops_samples", n);
        return d;
    }

    /** fio's latency object in nanoseconds; with {@code percentiles}, its "percentile" map too. */
    static ObjectNode latency(LatencyStats l, boolean percentiles) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("min", ns(l.minUs()));
        o.put("max", ns(l.maxUs()));
        o.put("mean", l.averageUs() * 1000);
        o.put("stddev", l.stddevUs() * 1000);
        o.put("N", l.count());
        if (percentiles && l.count() > 0) {
            ObjectNode p = o.putObject("percentile");
            for (double q : FIO_PERCENTILES) {
                p.put(percentileKey(q), ns(l.atPercentile(q)));
            }
        }
        return o;
    }

    /** fio prints the percent with C's {@code %f}: 99.99 is "99.990000". */
    static String percentileKey(double p) {
        return java.math.BigDecimal.valueOf(p).movePointRight(2).setScale(6, java.math.RoundingMode.HALF_EVEN)
                .toPlainString();
    }

    private static long ns(double us) {
        return Double.isNaN(us) ? 0 : Math.round(us * 1000);
    }
}
