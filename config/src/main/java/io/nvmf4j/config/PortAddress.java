package io.nvmf4j.config;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * A port's {@code addr} group: the values a discovery log entry (NVMe-oF 1.1, 5.3 Discovery Log Page Entry)
 * advertises. Mirrors the Linux configfs attributes {@code addr_trtype}, {@code addr_adrfam}, {@code addr_traddr},
 * {@code addr_trsvcid}, {@code addr_treq}.
 *
 * @param trtype  transport type, {@link #TRTYPE_RDMA} or {@link #TRTYPE_TCP}
 * @param adrfam  {@code "ipv4"} or {@code "ipv6"}
 * @param traddr  an IP address literal (never a host name)
 * @param trsvcid the service id, for both transports the port number as a decimal string
 * @param treq    {@code "not specified"}, {@code "required"} or {@code "not required"}
 */
public record PortAddress(String trtype, String adrfam, String traddr, String trsvcid, String treq) {

    public static final String TREQ_NOT_SPECIFIED = "not specified";
    /** NVMe over RDMA, Linux nvmet's {@code addr_trtype} name. */
    public static final String TRTYPE_RDMA = "rdma";
    /** NVMe/TCP, Linux nvmet's {@code addr_trtype} name. */
    public static final String TRTYPE_TCP = "tcp";

    /** The socket address to listen on (the literal is parsed, never resolved). */
    public InetSocketAddress socketAddress() {
        return new InetSocketAddress(InetAddress.ofLiteral(traddr), port());
    }

    public int port() {
        return Integer.parseInt(trsvcid);
    }
}
