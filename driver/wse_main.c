// SPDX-License-Identifier: GPL-2.0-only
/*
 * wse_main.c - the wse PCI driver: a character device /dev/wseN per board
 * that carries whole link packets (docs/driver.md). The portable part is in
 * wse_core.c; this file binds it to Linux.
 *
 * BAR 0 is the board's PCIe device side (docs/pcie.md, wsemu/wse_pcie.h):
 * the core drives its two descriptor rings through the register accessors
 * and the coherent DMA memory below; MSI-X vectors, or a polling timer
 * when there are none, call the core's interrupt entry point. The PCI ID is
 * provisional until a board has its own.
 *
 * With ivshmem=1 the driver also binds QEMU's ivshmem device when its BAR 2
 * holds the register file of wsemu-fast's PCIe model (docs/driver.md, "The
 * ivshmem device"): BAR 2 is then BAR 0, the status registers are cleared
 * by a read-modify-write and a ring's stop waits for the model to take it.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "wse_core.h"
#include "wsemu/wse_pcie.h"

/* Provisional IDs (docs/driver.md): replaced when the board has its own. */
#define WSE_PCI_VENDOR_ID	0x1204
#define WSE_PCI_DEVICE_ID	0xe5e0

#define WSE_RING_BYTES		(256 * 1024)	/* the read queue */

/* The rings: 32 entries of a page each way (a largest request takes 17). */
static const struct wse_ring_cfg wse_rings = {
	.h2c_entries = 32, .h2c_buf_bytes = 4096,
	.c2h_entries = 32, .c2h_buf_bytes = 4096,
};

/* Without MSI-X, the interrupt entry point runs this often. */
#define WSE_POLL_MS		2

/* QEMU's ivshmem device and its shared-memory BAR. */
#define WSE_IVSHMEM_VENDOR_ID	0x1af4
#define WSE_IVSHMEM_DEVICE_ID	0x1110
#define WSE_IVSHMEM_BAR		2
/*
 * CTRL: a stop the model has not taken yet; the longest wait for it. The
 * model is a simulator process on the host: wsemu-sim's RTL model takes a
 * stop in simulated cycles, a few thousand a second, later still when the
 * host is loaded, so the wait allows it half a second (wsemu-fast takes
 * one in well under a millisecond).
 */
#define WSE_IVSHMEM_STOPPING	0x80000000u
#define WSE_IVSHMEM_STOP_US	500000

static bool ivshmem;
module_param(ivshmem, bool, 0444);
MODULE_PARM_DESC(ivshmem,
		 "also bind QEMU's ivshmem device holding wsemu-fast's PCIe registers in BAR 2 (default off)");

struct wse_dev {
	struct wse_core core;
	struct pci_dev *pdev;
	void __iomem *bar;
	int barno;		/* 0, or WSE_IVSHMEM_BAR on ivshmem */
	u8 *dtb;
	int id;
	char name[16];
	struct miscdevice misc;
	spinlock_t lock;	/* the core's queue and rings */
	wait_queue_head_t wq;
	int nvec;		/* MSI-X vectors requested; 0: polling */
	struct delayed_work poll;
	atomic_t opened;
	struct kref ref;	/* probe's, and an open file's */
};

static DEFINE_IDA(wse_ida);

static struct wse_dev *core_to_wse(struct wse_core *c)
{
	return container_of(c, struct wse_dev, core);
}

static void *wse_os_alloc(size_t size)
{
	return kvmalloc(size, GFP_KERNEL);
}

static void wse_os_free(void *p)
{
	kvfree(p);
}

static void wse_os_lock(struct wse_core *c)
	__acquires(&core_to_wse(c)->lock)
{
	spin_lock(&core_to_wse(c)->lock);
}

static void wse_os_unlock(struct wse_core *c)
	__releases(&core_to_wse(c)->lock)
{
	spin_unlock(&core_to_wse(c)->lock);
}

static int wse_os_wait(struct wse_core *c, int (*ready)(struct wse_core *c),
		       unsigned int timeout_ms)
{
	struct wse_dev *wd = core_to_wse(c);
	long ret;

	if (!timeout_ms)
		return wait_event_interruptible(wd->wq, ready(c));
	ret = wait_event_interruptible_timeout(wd->wq, ready(c),
					       msecs_to_jiffies(timeout_ms));
	if (ret < 0)
		return ret;
	return ret ? 0 : -ETIMEDOUT;
}

static void wse_os_wake(struct wse_core *c)
{
	wake_up_interruptible(&core_to_wse(c)->wq);
}

static unsigned long wse_os_copy_from_user(void *to, const void __user *from,
					   unsigned long n)
{
	return copy_from_user(to, from, n);
}

static unsigned long wse_os_copy_to_user(void __user *to, const void *from,
					 unsigned long n)
{
	return copy_to_user(to, from, n);
}

static void wse_os_log(struct wse_core *c, const char *msg)
{
	dev_dbg(&core_to_wse(c)->pdev->dev, "%s\n", msg);
}

static u32 wse_os_reg_read(struct wse_core *c, u32 off)
{
	return ioread32(core_to_wse(c)->bar + off);
}

static void wse_os_reg_write(struct wse_core *c, u32 off, u32 val)
{
	struct wse_dev *wd = core_to_wse(c);
	u32 v;

	if (!wd->barno) {
		iowrite32(val, wd->bar + off);
		return;
	}
	/* ivshmem: plain memory, not write-1-to-clear */
	if (off == WSE_PCIE_REG_INT_STATUS || off == WSE_PCIE_REG_ERR_STATUS)
		val = ioread32(wd->bar + off) & ~val;
	if ((off == WSE_PCIE_REG_H2C + WSE_PCIE_RING_CTRL ||
	     off == WSE_PCIE_REG_C2H + WSE_PCIE_RING_CTRL) &&
	    !(val & WSE_PCIE_CTRL_RUN)) {
		/*
		 * a stop: taken when the model writes CTRL 0; until then
		 * BUSY, so that a model that stopped answering keeps the
		 * ring busy for the core (a reset fails with -ETIMEDOUT)
		 */
		iowrite32(val | WSE_IVSHMEM_STOPPING | WSE_PCIE_CTRL_BUSY,
			  wd->bar + off);
		if (read_poll_timeout_atomic(ioread32, v, !v, 10,
					     WSE_IVSHMEM_STOP_US, false,
					     wd->bar + off))
			dev_warn(&wd->pdev->dev,
				 "the model did not take a stop\n");
		return;
	}
	iowrite32(val, wd->bar + off);
}

static void *wse_os_dma_alloc(struct wse_core *c, size_t size, u64 *bus)
{
	dma_addr_t h;
	void *p;

	p = dma_alloc_coherent(&core_to_wse(c)->pdev->dev, size, &h,
			       GFP_KERNEL);
	if (p)
		*bus = h;
	return p;
}

static void wse_os_dma_free(struct wse_core *c, size_t size, void *cpu,
			    u64 bus)
{
	dma_free_coherent(&core_to_wse(c)->pdev->dev, size, cpu, bus);
}

static const struct wse_os_ops wse_linux_ops = {
	.alloc = wse_os_alloc,
	.free = wse_os_free,
	.lock = wse_os_lock,
	.unlock = wse_os_unlock,
	.wait = wse_os_wait,
	.wake = wse_os_wake,
	.copy_from_user = wse_os_copy_from_user,
	.copy_to_user = wse_os_copy_to_user,
	.log = wse_os_log,
	.reg_read = wse_os_reg_read,
	.reg_write = wse_os_reg_write,
	.dma_alloc = wse_os_dma_alloc,
	.dma_free = wse_os_dma_free,
};

/* The last reference: the device is removed and no file is open. */
static void wse_dev_free(struct kref *ref)
{
	struct wse_dev *wd = container_of(ref, struct wse_dev, ref);

	wse_core_fini(&wd->core);
	kvfree(wd->dtb);
	pci_dev_put(wd->pdev);
	kfree(wd);
}

static struct wse_dev *file_to_wse(struct file *f)
{
	return container_of(f->private_data, struct wse_dev, misc);
}

/*
 * One open file at a time: the link's request tags belong to one user. The
 * misc core calls open under the lock misc_deregister() takes, so the
 * device is still registered here; the file's reference keeps it after a
 * remove until the file is closed.
 */
static int wse_open(struct inode *inode, struct file *f)
{
	struct wse_dev *wd = file_to_wse(f);

	if (atomic_cmpxchg(&wd->opened, 0, 1))
		return -EBUSY;
	kref_get(&wd->ref);
	return nonseekable_open(inode, f);
}

static int wse_release(struct inode *inode, struct file *f)
{
	struct wse_dev *wd = file_to_wse(f);

	atomic_set(&wd->opened, 0);
	kref_put(&wd->ref, wse_dev_free);
	return 0;
}

static ssize_t wse_read(struct file *f, char __user *buf, size_t count,
			loff_t *ppos)
{
	return wse_core_read(&file_to_wse(f)->core, buf, count,
			     f->f_flags & O_NONBLOCK);
}

static ssize_t wse_write(struct file *f, const char __user *buf, size_t count,
			 loff_t *ppos)
{
	return wse_core_write(&file_to_wse(f)->core, buf, count,
			      f->f_flags & O_NONBLOCK);
}

static __poll_t wse_poll(struct file *f, poll_table *wait)
{
	struct wse_dev *wd = file_to_wse(f);
	unsigned int m;
	__poll_t mask = 0;

	poll_wait(f, &wd->wq, wait);
	m = wse_core_poll(&wd->core);
	if (m & WSE_CORE_GONE)
		return EPOLLHUP | EPOLLERR;
	if (m & WSE_CORE_READABLE)
		mask |= EPOLLIN | EPOLLRDNORM;
	if (m & WSE_CORE_WRITABLE)
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

static long wse_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	return wse_core_ioctl(&file_to_wse(f)->core, cmd,
			      (void __user *)arg);
}

static const struct file_operations wse_fops = {
	.owner = THIS_MODULE,
	.open = wse_open,
	.release = wse_release,
	.read = wse_read,
	.write = wse_write,
	.poll = wse_poll,
	.unlocked_ioctl = wse_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

static struct wse_dev *dev_to_wse(struct device *dev)
{
	struct miscdevice *misc = dev_get_drvdata(dev);

	return container_of(misc, struct wse_dev, misc);
}

static ssize_t mesh_cols_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_wse(dev)->core.board.mesh_cols);
}
static DEVICE_ATTR_RO(mesh_cols);

static ssize_t mesh_rows_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_wse(dev)->core.board.mesh_rows);
}
static DEVICE_ATTR_RO(mesh_rows);

static ssize_t compatible_show(struct device *dev, struct device_attribute *a,
			       char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_to_wse(dev)->core.board.compatible);
}
static DEVICE_ATTR_RO(compatible);

static ssize_t api_version_show(struct device *dev, struct device_attribute *a,
				char *buf)
{
	return sysfs_emit(buf, "%u\n", WSE_API_VERSION);
}
static DEVICE_ATTR_RO(api_version);

static ssize_t driver_version_show(struct device *dev,
				   struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u.%u\n", WSE_DRIVER_MAJOR, WSE_DRIVER_MINOR);
}
static DEVICE_ATTR_RO(driver_version);

static ssize_t dtb_read(struct file *f, struct kobject *kobj,
			struct bin_attribute *attr, char *buf, loff_t off,
			size_t count)
{
	struct wse_dev *wd = dev_to_wse(kobj_to_dev(kobj));

	return memory_read_from_buffer(buf, count, &off, wd->dtb,
				       wd->core.board.dtb_size);
}
static BIN_ATTR_RO(dtb, 0);

static struct attribute *wse_attrs[] = {
	&dev_attr_mesh_cols.attr,
	&dev_attr_mesh_rows.attr,
	&dev_attr_compatible.attr,
	&dev_attr_api_version.attr,
	&dev_attr_driver_version.attr,
	NULL,
};

static struct bin_attribute *wse_bin_attrs[] = {
	&bin_attr_dtb,
	NULL,
};

static const struct attribute_group wse_group = {
	.attrs = wse_attrs,
	.bin_attrs = wse_bin_attrs,
};

static const struct attribute_group *wse_groups[] = {
	&wse_group,
	NULL,
};

/* The board's identification block and DTB from BAR 0 (ivshmem: 2). */
static int wse_read_board(struct wse_dev *wd, struct wse_board_info *b)
{
	resource_size_t bar_len = pci_resource_len(wd->pdev, wd->barno);
	u32 version;

	if (bar_len < WSE_PCIE_DTB_OFFSET ||
	    ioread32(wd->bar + WSE_PCIE_REG_MAGIC) != WSE_PCIE_MAGIC) {
		if (wd->barno)	/* another ivshmem device: not ours */
			dev_info(&wd->pdev->dev,
				 "ivshmem without wsemu registers in BAR %d\n",
				 wd->barno);
		else
			dev_err(&wd->pdev->dev,
				"no wsemu identification in BAR 0\n");
		return -ENODEV;
	}
	version = ioread32(wd->bar + WSE_PCIE_REG_VERSION);
	if (version >> 16 != WSE_PCIE_VERSION >> 16) {
		dev_err(&wd->pdev->dev, "device side version %#x unsupported\n",
			version);
		return -ENODEV;
	}
	memset(b, 0, sizeof(*b));
	b->mesh_cols = ioread32(wd->bar + WSE_PCIE_REG_MESH_COLS);
	b->mesh_rows = ioread32(wd->bar + WSE_PCIE_REG_MESH_ROWS);
	b->dtb_size = ioread32(wd->bar + WSE_PCIE_REG_DTB_SIZE);
	b->max_payload = ioread32(wd->bar + WSE_PCIE_REG_MAX_PAYLOAD);
	memcpy_fromio(b->compatible, wd->bar + WSE_PCIE_REG_COMPAT,
		      sizeof(b->compatible) - 1);
	if (b->dtb_size > bar_len - WSE_PCIE_DTB_OFFSET)
		return -ENODEV;
	wd->dtb = kvmalloc(b->dtb_size ? b->dtb_size : 1, GFP_KERNEL);
	if (!wd->dtb)
		return -ENOMEM;
	memcpy_fromio(wd->dtb, wd->bar + WSE_PCIE_DTB_OFFSET, b->dtb_size);
	return 0;
}

/* An MSI-X vector, in a thread: the core's lock is taken in process context. */
static irqreturn_t wse_irq_thread(int irq, void *data)
{
	struct wse_dev *wd = data;

	wse_core_irq(&wd->core);
	return IRQ_HANDLED;
}

/* Without MSI-X: the interrupt entry point every WSE_POLL_MS. */
static void wse_poll_work(struct work_struct *work)
{
	struct wse_dev *wd = container_of(to_delayed_work(work),
					  struct wse_dev, poll);

	wse_core_irq(&wd->core);
	schedule_delayed_work(&wd->poll, msecs_to_jiffies(WSE_POLL_MS));
}

/*
 * The device's three MSI-X vectors (H2C, C2H, error), each calling the
 * core; with fewer, the polling timer (started by wse_irq_start()).
 */
static int wse_irq_request(struct wse_dev *wd)
{
	struct pci_dev *pdev = wd->pdev;
	int ret, i;

	INIT_DELAYED_WORK(&wd->poll, wse_poll_work);
	ret = pci_alloc_irq_vectors(pdev, WSE_PCIE_NUM_VECTORS,
				    WSE_PCIE_NUM_VECTORS, PCI_IRQ_MSIX);
	if (ret < 0) {
		dev_info(&pdev->dev, "no MSI-X: polling every %d ms\n",
			 WSE_POLL_MS);
		return 0;
	}
	for (i = 0; i < WSE_PCIE_NUM_VECTORS; i++) {
		ret = pci_request_irq(pdev, i, NULL, wse_irq_thread, wd,
				      "%s-%s-%d", KBUILD_MODNAME,
				      pci_name(pdev), i);
		if (ret)
			goto err_free_vectors;
		wd->nvec = i + 1;
	}
	return 0;

err_free_vectors:
	while (wd->nvec)
		pci_free_irq(pdev, --wd->nvec, wd);
	pci_free_irq_vectors(pdev);
	return ret;
}

static void wse_irq_start(struct wse_dev *wd)
{
	if (!wd->nvec)
		schedule_delayed_work(&wd->poll, msecs_to_jiffies(WSE_POLL_MS));
}

/* Undo wse_irq_request() and wse_irq_start(). */
static void wse_irq_free(struct wse_dev *wd)
{
	if (!wd->nvec) {
		cancel_delayed_work_sync(&wd->poll);
		return;
	}
	while (wd->nvec)
		pci_free_irq(wd->pdev, --wd->nvec, wd);
	pci_free_irq_vectors(wd->pdev);
}

static int wse_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct wse_board_info board;
	struct wse_dev *wd;
	int ret;

	if (id->driver_data && !ivshmem)
		return -ENODEV;
	wd = kzalloc(sizeof(*wd), GFP_KERNEL);
	if (!wd)
		return -ENOMEM;
	wd->pdev = pci_dev_get(pdev);	/* for the log of an open file */
	spin_lock_init(&wd->lock);
	init_waitqueue_head(&wd->wq);
	kref_init(&wd->ref);
	wd->barno = id->driver_data ? WSE_IVSHMEM_BAR : 0;

	ret = pci_enable_device(pdev);
	if (ret)
		goto err_free_wd;
	ret = pci_request_regions(pdev, KBUILD_MODNAME);
	if (ret)
		goto err_disable_device;
	wd->bar = pci_iomap(pdev, wd->barno, 0);
	if (!wd->bar) {
		ret = -ENOMEM;
		goto err_release_regions;
	}
	ret = wse_read_board(wd, &board);
	if (ret)
		goto err_unmap_bar;
	ret = wse_core_init(&wd->core, &wse_linux_ops, wd, &board,
			    WSE_RING_BYTES);
	if (ret)
		goto err_free_dtb;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		goto err_fini_core;
	pci_set_master(pdev);
	ret = wse_irq_request(wd);
	if (ret)
		goto err_clear_master;
	ret = wse_core_start(&wd->core, &wse_rings);
	if (ret)
		goto err_free_irq;
	wse_irq_start(wd);
	wd->id = ida_alloc(&wse_ida, GFP_KERNEL);
	if (wd->id < 0) {
		ret = wd->id;
		goto err_stop_core;
	}
	snprintf(wd->name, sizeof(wd->name), "wse%d", wd->id);
	wd->misc.minor = MISC_DYNAMIC_MINOR;
	wd->misc.name = wd->name;
	wd->misc.fops = &wse_fops;
	wd->misc.parent = &pdev->dev;
	wd->misc.groups = wse_groups;
	ret = misc_register(&wd->misc);
	if (ret)
		goto err_free_id;
	pci_set_drvdata(pdev, wd);
	return 0;

err_free_id:
	ida_free(&wse_ida, wd->id);
err_stop_core:
	wse_core_remove(&wd->core);
	wse_core_stop(&wd->core);
err_free_irq:
	wse_irq_free(wd);
err_clear_master:
	pci_clear_master(pdev);
err_fini_core:
	wse_core_fini(&wd->core);
err_free_dtb:
	kvfree(wd->dtb);
err_unmap_bar:
	pci_iounmap(pdev, wd->bar);
err_release_regions:
	pci_release_regions(pdev);
err_disable_device:
	pci_disable_device(pdev);
err_free_wd:
	pci_dev_put(pdev);
	kfree(wd);
	return ret;
}

/*
 * An open file's waiters wake, and its calls fail, with -ENODEV; the
 * interrupts and the polling end; the rings stop, the device's DMA with
 * them, and their memory goes back. The rest waits for the last file.
 */
static void wse_remove(struct pci_dev *pdev)
{
	struct wse_dev *wd = pci_get_drvdata(pdev);

	misc_deregister(&wd->misc);
	wse_core_remove(&wd->core);
	ida_free(&wse_ida, wd->id);
	wse_core_stop(&wd->core);
	wse_irq_free(wd);
	pci_clear_master(pdev);
	wse_core_free_rings(&wd->core);
	pci_iounmap(pdev, wd->bar);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
	kref_put(&wd->ref, wse_dev_free);
}

static const struct pci_device_id wse_pci_ids[] = {
	{ PCI_DEVICE(WSE_PCI_VENDOR_ID, WSE_PCI_DEVICE_ID) },
	/* only with ivshmem=1, and only holding the registers in BAR 2 */
	{ PCI_DEVICE(WSE_IVSHMEM_VENDOR_ID, WSE_IVSHMEM_DEVICE_ID),
	  .driver_data = 1 },
	{ }
};
MODULE_DEVICE_TABLE(pci, wse_pci_ids);

static struct pci_driver wse_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = wse_pci_ids,
	.probe = wse_probe,
	.remove = wse_remove,
};
module_pci_driver(wse_pci_driver);

MODULE_DESCRIPTION("wsemu wafer-scale engine board: link packets over PCIe");
MODULE_LICENSE("GPL");
MODULE_VERSION(__stringify(WSE_DRIVER_MAJOR) "."
	       __stringify(WSE_DRIVER_MINOR));
