package io.nvmf4j.verbs.conformance;

import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaProvider;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WcStatus;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * A provider the conformance suite runs against, and the source of the suite's parameters: every provider on
 * the class path whose {@code availability()} says present. Providers that are absent (ibverbs on a machine
 * without libibverbs or a device) are not listed; the reason is printed once so a test report says why.
 *
 * <p>Three system properties point the suite at a real device (interop checks 40/41 run it in the lab guest on
 * {@code siw0} and {@code rxe0}): {@code nvmf4j.conformance.provider} runs it on that provider only (and fails,
 * rather than skips, when the provider is absent), {@code nvmf4j.conformance.device} names the device every bench
 * opens (default: the provider's first), {@code nvmf4j.conformance.address} is the IP address the benches listen
 * on and connect to (default 127.0.0.1; the kernel's siw and rxe need the address of the netdev they are bound
 * to).
 *
 * @param provider the provider
 */
public record ProviderUnderTest(RdmaProvider provider) {

    private static volatile boolean reported;

    /** Name shown in test reports. */
    @Override
    public String toString() {
        return provider.name();
    }

    /**
     * Whether connection errors travel as iWARP Terminate messages the provider itself sends and receives
     * (softiwarp). Then the disconnect causes are exact ({@code TERMINATE_SENT} / {@code TERMINATE_RECEIVED});
     * a provider over a kernel device learns only that the queue pair broke.
     */
    boolean seesTerminates() {
        return provider.name().equals("softiwarp");
    }

    /** The device a bench opens: {@code nvmf4j.conformance.device}, or null for the provider's default. */
    public static String deviceName() {
        String name = System.getProperty("nvmf4j.conformance.device");
        return name == null || name.isBlank() ? null : name;
    }

    /** Opens the device the suite runs on. */
    public RdmaDevice openDevice() throws VerbsException {
        return provider.openDevice(deviceName());
    }

    /** The address benches listen on: {@code nvmf4j.conformance.address}, default the loopback address. */
    public static InetAddress address() {
        String address = System.getProperty("nvmf4j.conformance.address");
        if (address == null || address.isBlank()) {
            return InetAddress.getLoopbackAddress();
        }
        try {
            return InetAddress.getByName(address);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("nvmf4j.conformance.address=" + address, e);
        }
    }

    /**
     * Why a Send with Invalidate of a region registered with {@code register} cannot be checked on this provider's
     * device, or null when it can. Both reasons were read in the sources, not guessed:
     * <ul>
     * <li>IBA allows remote invalidation only of fast-registered memory regions and type 2 memory windows, not of
     * regions made by the register-memory verb ({@code ibv_reg_mr}, our {@code register}); Linux rxe enforces it
     * ({@code rxe_invalidate_mr()}: "mr->type != IB_MR_TYPE_MEM_REG" -> the sender's completion is
     * {@code REM_INV_REQ_ERR}), and so do hardware RNICs.</li>
     * <li>siw invalidates any region of the PD in the kernel ({@code siw_invalidate_stag()}), but rdma-core's
     * user-space siw provider never reports it: {@code providers/siw/siw.c copy_cqe()} sets {@code wc_flags = 0}, so
     * the receive completion carries no {@code IBV_WC_WITH_INV} and no invalidated rkey.</li>
     * </ul>
     */
    String remoteInvalidateLimitation(RdmaDevice device) {
        if (!provider.name().equals("ibverbs")) {
            return null;
        }
        if (device.name().startsWith("siw")) {
            return "device " + device.name() + ": rdma-core's user-space siw provider (providers/siw/siw.c, copy_cqe)"
                    + " sets wc_flags = 0, so a receive never reports IBV_WC_WITH_INV or the invalidated rkey";
        }
        return "device " + device.name() + ": IBA allows remote invalidation only of fast-registered regions and"
                + " type 2 memory windows, not of ibv_reg_mr regions (rxe enforces it in rxe_invalidate_mr():"
                + " REM_INV_REQ_ERR)";
    }

    /** Whether the suite runs on the ibverbs provider over a kernel device whose name starts with {@code prefix}. */
    private boolean onKernelDevice(String prefix) {
        String device = deviceName();
        return provider.name().equals("ibverbs") && device != null && device.startsWith(prefix);
    }

    /*
     * The device behaviours below were read in the sources the lab runs (Linux 6.1.192 drivers/infiniband/sw,
     * rdma-core 44.0), not inferred from the failures: each names the function that decides it. Verbs allow a
     * device some latitude in error statuses; the tests still check that the request failed, that nothing was
     * placed, and that the connection ended.
     */

    /**
     * The status of an RDMA Read the responder rejects (unknown STag, bounds, other PD, no remote read access):
     * {@code REM_ACCESS_ERR}, except on siw, which never reports one (no code path of siw 6.1 sets
     * {@code SIW_WC_REM_ACCESS_ERR}): the responder sends a Terminate and drops the connection, the requester's
     * siw_proc_terminate() only logs it, and the connection's end flushes the Read (siw_qp_llp_close() ->
     * siw_sq_flush(): {@code WR_FLUSH_ERR}).
     */
    WcStatus rejectedReadStatus() {
        return onKernelDevice("siw") ? WcStatus.WR_FLUSH_ERR : WcStatus.REM_ACCESS_ERR;
    }

    /**
     * The status of a Send whose gather list names an unknown lkey ({@code unknownKey}) or runs past its region:
     * {@code LOC_PROT_ERR} by the verbs, but siw fails every local check of the send path with -EINVAL, which it
     * reports as {@code LOC_QP_OP_ERR} (siw_qp_sq_process() after siw_check_sgl_tx()), and rxe turns an lkey that
     * names no region into -EINVAL as well (copy_data(): lookup_mr() fails -> {@code LOC_QP_OP_ERR}), while a
     * range past a known region is -EFAULT there (mr_check_range() -> {@code LOC_PROT_ERR}).
     */
    WcStatus localProtectionStatus(boolean unknownKey) {
        if (onKernelDevice("siw") || (unknownKey && onKernelDevice("rxe"))) {
            return WcStatus.LOC_QP_OP_ERR;
        }
        return WcStatus.LOC_PROT_ERR;
    }

    /**
     * The status of a receive too short for the Send that arrives: {@code LOC_LEN_ERR}, except on rxe, whose
     * responder copies with copy_data(), which answers a length past the receive's SGEs with -EINVAL, not -ENOSPC,
     * so the length-error branch of rxe_resp.c send_data_in() is never taken: {@code LOC_QP_OP_ERR}.
     */
    WcStatus receiveTooShortStatus() {
        return onKernelDevice("rxe") ? WcStatus.LOC_QP_OP_ERR : WcStatus.LOC_LEN_ERR;
    }

    /**
     * Why a Read of a region registered without remote read access cannot be checked here, or null: siw stores the
     * access rights (siw_mr_add_mem(): {@code mem->perms}) but checks a Read Response's source with no rights at
     * all (siw_qp_sq_proc_tx(): {@code siw_check_sgl_tx(qp->pd, wqe, 0)}), so it serves the Read.
     */
    String remoteReadAccessLimitation() {
        return onKernelDevice("siw") ? "device " + deviceName() + ": siw serves an RDMA Read from a region without"
                + " remote read access (siw_qp_sq_proc_tx() checks the source with siw_check_sgl_tx(pd, wqe, 0):"
                + " no access rights asked for)" : null;
    }

    /**
     * The private data a peer sent, as the test compares it: exactly what arrived, except on InfiniBand/RoCE
     * devices, whose CM messages carry private data in fixed-size fields (IBA 12.6: REQ and REP 92 bytes, of which
     * rdma_cm's header takes 36 for a REQ, so 56 reach the listener; REJ 148): there everything past
     * {@code sentLength} must be zero padding and is cut off. iWARP (MPA) carries the exact length.
     */
    byte[] significant(byte[] arrived, int sentLength) {
        String device = deviceName();
        boolean fixedSize = provider.name().equals("ibverbs") && (device == null || !device.startsWith("siw"));
        if (!fixedSize || arrived.length <= sentLength) {
            return arrived;
        }
        for (int i = sentLength; i < arrived.length; i++) {
            if (arrived[i] != 0) {
                return arrived; // not padding: let the comparison fail and show it
            }
        }
        return Arrays.copyOf(arrived, sentLength);
    }

    /**
     * Why a plain TCP socket cannot stand in for a silent connection-manager peer on this device, or null when it
     * can: on InfiniBand/RoCE rdma_cm speaks the IB CM (MADs to the device's QP1; RoCEv2: UDP port 4791), never
     * TCP, so a connect to a TCP listener reaches no listener at all and is rejected (REJ reason 8). iWARP (siw,
     * softiwarp) sets up its connections over TCP, where the socket is a peer that never answers MPA.
     */
    String tcpPeerLimitation() {
        String device = deviceName();
        if (provider.name().equals("ibverbs") && (device == null || !device.startsWith("siw"))) {
            return "device " + (device == null ? "(default)" : device) + ": InfiniBand/RoCE connection setup is"
                    + " the IB CM, not TCP; a TCP socket is no peer for it";
        }
        return null;
    }

    /** The {@code @MethodSource} of provider-parameterised tests. */
    public static Stream<ProviderUnderTest> available() {
        String only = System.getProperty("nvmf4j.conformance.provider");
        if (only != null && !only.isBlank()) {
            RdmaProvider chosen = RdmaProviders.all().stream().filter(p -> p.name().equals(only)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("nvmf4j.conformance.provider=" + only
                            + " is not on the class path"));
            if (!chosen.availability().present()) {
                throw new IllegalStateException("nvmf4j.conformance.provider=" + only + " is not available: "
                        + chosen.availability().reason());
            }
            return Stream.of(new ProviderUnderTest(chosen));
        }
        List<RdmaProvider> all = RdmaProviders.all();
        if (!reported) {
            reported = true;
            for (RdmaProvider provider : all) {
                if (!provider.availability().present()) {
                    System.err.println("conformance: provider '" + provider.name() + "' not tested: "
                            + provider.availability().reason());
                }
            }
            for (String expected : List.of("softiwarp", "ibverbs")) {
                if (all.stream().noneMatch(p -> p.name().equals(expected))) {
                    System.err.println("conformance: provider '" + expected + "' not tested: it is not on the "
                            + "class path");
                }
            }
        }
        return all.stream().filter(p -> p.availability().present()).map(ProviderUnderTest::new);
    }

    /** Every available provider crossed with the transfer sizes of the suite (1 byte to 16 MiB). */
    public static Stream<Arguments> availableWithTransferSizes() {
        int[] sizes = {1, 7, 4096, 65536, 1 << 20, 16 << 20};
        return available().flatMap(p -> Arrays.stream(sizes).mapToObj(size -> Arguments.of(p, size)));
    }
}
