package io.nvmf4j.cli.rping;

/**
 * How an rping run went.
 *
 * @param pings    complete pings (read and written back)
 * @param size     the ping data size seen (client: its -S; server: the client's advertised size)
 * @param verified whether every ping's data was checked (and matched; a mismatch is an exception)
 * @param nanos    wall time of the pings, from the first advertisement to the last go-ahead
 */
public record RpingResult(long pings, int size, boolean verified, long nanos) {

    /** One line for people and for scripts: {@code "10 pings of 4096 bytes, data verified, 12.3 ms"}. */
    public String summary() {
        return pings + " pings of " + size + " bytes, " + (verified ? "data verified" : "data not checked (no -V)")
                + ", " + String.format("%.1f ms", nanos / 1e6);
    }
}
