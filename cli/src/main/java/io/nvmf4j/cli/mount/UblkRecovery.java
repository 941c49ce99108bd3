package io.nvmf4j.cli.mount;

import io.nvmf4j.cli.host.CommandFailure;
import io.nvmf4j.cli.mount.ublk.DeviceInfo;
import io.nvmf4j.cli.mount.ublk.DeviceParams;
import io.nvmf4j.cli.mount.ublk.NamespaceHandler;
import io.nvmf4j.cli.mount.ublk.UblkControl;
import io.nvmf4j.cli.mount.ublk.UblkDevice;
import io.nvmf4j.cli.mount.ublk.UblkException;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.uring.Errno;
import java.util.concurrent.TimeUnit;

/**
 * {@code mount --ublk --recover ID}: finds which namespace a device served (the mark {@link #serverFlags} left in
 * its {@code ublksrv_flags}), checks that this controller's namespace is still that disk (capacity, block size,
 * largest request), waits until the kernel has quiesced the device after its server's death, and serves it again
 * ({@link UblkDevice#recover}). Refusals name the device and what differs; the device then stays as it was.
 */
final class UblkRecovery {
    /** "nvmf" in the high half of {@code ublksrv_flags}: the low half is then the namespace's NSID. */
    private static final long MARK = 0x6e76_6d66L << 32;
    /** How long a dead server's device may take to become QUIESCED and its char device to be released. */
    private static final long WAIT_MILLIS = 15_000;
    private static final long POLL_MILLIS = 50;

    private UblkRecovery() {
    }

    /** The {@code ublksrv_flags} of a device that serves namespace {@code nsid}. */
    static long serverFlags(long nsid) {
        return MARK | (nsid & 0xffff_ffffL);
    }

    /** The NSID in {@code serverFlags}, or -1 when nvmf4j did not make the device. */
    static long nsid(long serverFlags) {
        return (serverFlags & 0xffff_ffff_0000_0000L) == MARK ? serverFlags & 0xffff_ffffL : -1;
    }

    static UblkDevice recover(UblkControl control, NvmeController controller, int id, int maxIoBytes)
            throws UblkException {
        String dev = "/dev/ublkb" + id;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        DeviceInfo info = awaitQuiesced(control, id, dev, deadline);
        long nsid = nsid(info.serverFlags());
        if (nsid < 0) {
            throw new CommandFailure("mount: " + dev + " was not made by nvmf4j mount --ublk; nothing to recover");
        }
        String nqn = controller.options().subsystemNqn().value();
        Namespace ns = controller.namespaces().stream().filter(n -> n.nsid() == nsid).findFirst()
                .orElseThrow(() -> new CommandFailure("mount: " + dev + " served namespace " + nsid + ", which "
                        + nqn + " does not have"));
        NamespaceHandler handler = new NamespaceHandler(controller, ns, info.queues());
        DeviceParams had = control.params(id);
        DeviceParams now = handler.params(Math.min(info.maxIoBytes(), maxIoBytes));
        if (had.deviceSectors() != now.deviceSectors() || had.logicalBlockShift() != now.logicalBlockShift()) {
            throw new CommandFailure("mount: " + dev + " is " + had.deviceSectors() + " sectors of "
                    + (1 << had.logicalBlockShift()) + "-byte blocks, namespace " + nsid + " of " + nqn + " is "
                    + now.deviceSectors() + " of " + (1 << now.logicalBlockShift())
                    + ": not the disk it served; nothing changed");
        }
        if (now.maxSectors() < had.maxSectors()) {
            throw new CommandFailure("mount: " + dev + " takes requests up to " + (had.maxSectors() / 2) + " KiB; "
                    + "this connection allows " + (now.maxSectors() / 2) + " KiB (MDTS); nothing changed");
        }
        while (true) {
            try {
                return UblkDevice.recover(control, info, handler);
            } catch (UblkException e) {
                // EBUSY: the dead server's char device is not released yet (its ring's exit work still runs)
                if (e.errno() != Errno.EBUSY || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                pause();
            }
        }
    }

    /** GET_DEV_INFO until the device is QUIESCED; a refusal when it is served or stopped. */
    private static DeviceInfo awaitQuiesced(UblkControl control, int id, String dev, long deadline)
            throws UblkException {
        while (true) {
            DeviceInfo info = control.deviceInfo(id);
            if (info.state() == DeviceInfo.STATE_QUIESCED) {
                return info;
            }
            if ((info.flags() & DeviceInfo.F_USER_RECOVERY) == 0) {
                throw new CommandFailure("mount: " + dev + " was added without user recovery; nothing to recover "
                        + "(nvmf4j ublk del -n " + id + " removes it)");
            }
            if (info.state() == DeviceInfo.STATE_DEAD) {
                throw new CommandFailure("mount: " + dev + " is DEAD (stopped); nothing to recover (nvmf4j ublk "
                        + "del -n " + id + " removes it)");
            }
            boolean serverAlive = ProcessHandle.of(info.serverPid()).map(ProcessHandle::isAlive).orElse(false);
            if (serverAlive) {
                throw new CommandFailure("mount: " + dev + " is LIVE, served by pid " + info.serverPid()
                        + "; nothing to recover");
            }
            if (System.nanoTime() - deadline > 0) {
                throw new CommandFailure("mount: " + dev + " is still " + DeviceInfo.stateName(info.state())
                        + " " + WAIT_MILLIS / 1000 + " s after its server (pid " + info.serverPid() + ") ended");
            }
            pause(); // the kernel quiesces a device whose server died from a work item: no event to wait on
        }
    }

    private static void pause() throws UblkException {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UblkException("waiting for the ublk device to be recoverable", Errno.EINTR);
        }
    }
}
