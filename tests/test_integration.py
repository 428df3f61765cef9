"""reduce_opt ops as native ops: torch.compile, torch.export, CUDA graphs, autograd, opcheck."""

import pytest
import torch
from conftest import DEVICES, VERSIONS, assert_close_to_reference, op, random_tensor, requires_cuda


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_opcheck(device, version, seed):
    cases = [
        (random_tensor(1000, torch.float32, device),),
        (random_tensor(257, torch.float64, device).requires_grad_(),),
        (random_tensor(333, torch.int32, device),),
        (random_tensor(64, torch.float16, device).reshape(8, 8).t(),),
    ]
    for args in cases:
        torch.library.opcheck(
            op(version).default,
            args,
            test_utils=(
                "test_schema",
                "test_autograd_registration",
                "test_faketensor",
                "test_aot_dispatch_dynamic",
            ),
        )


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_compile_fullgraph(device, version, seed):
    torch.compiler.reset()  # each version's function would otherwise count as a recompile
    sum_op = op(version)

    def scaled_sum(x):
        return sum_op(x * 2) + 1

    compiled = torch.compile(scaled_sum, fullgraph=True, backend="aot_eager", dynamic=True)
    for numel in (1000, 4097):
        x = random_tensor(numel, torch.float32, device)
        assert_close_to_reference((compiled(x) - 1) / 2, x)


@pytest.mark.parametrize("version", [0, 7])
@pytest.mark.parametrize("device", DEVICES)
def test_export(device, version, seed):
    sum_op = op(version)

    class Model(torch.nn.Module):
        def forward(self, x):
            return sum_op(x.relu())

    x = random_tensor(2048, torch.float32, device)
    program = torch.export.export(Model(), (x,))
    assert any(
        node.target == getattr(torch.ops.reduce_opt, f"sum_v{version}").default
        for node in program.graph.nodes
    )
    fresh = random_tensor(2048, torch.float32, device)
    assert_close_to_reference(program.module()(fresh), fresh.relu())


@requires_cuda
@pytest.mark.parametrize("version", VERSIONS)
def test_cuda_graph_replays_see_new_data(version, seed):
    """Capture fails outright if an op launches on the legacy default stream
    instead of the current (capturing) one: the class of pytorch/pytorch#157363."""
    static_input = random_tensor(1_000_003, torch.float32, "cuda")
    op(version)(static_input)  # warm up outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_output = op(version)(static_input)
    for _ in range(3):
        fresh = random_tensor(static_input.numel(), torch.float32, "cuda")
        static_input.copy_(fresh)
        graph.replay()
        torch.cuda.synchronize()
        assert_close_to_reference(static_output, fresh)
        # Graph and eager calls agree bit for bit.
        assert torch.equal(static_output, op(version)(fresh))


@requires_cuda
@pytest.mark.parametrize("version", [5, 7])
def test_compile_reduce_overhead(version, seed):
    torch.compiler.reset()
    sum_op = op(version)

    def normalised_sum(x):
        return sum_op(x) / x.numel()

    compiled = torch.compile(normalised_sum, mode="reduce-overhead", fullgraph=True)
    for _ in range(4):
        x = random_tensor(65_537, torch.float32, "cuda")
        result = compiled(x)
        torch.cuda.synchronize()
        assert_close_to_reference(result * x.numel(), x)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_gradcheck(device, version, seed):
    x = random_tensor(37, torch.float64, device).reshape(37, 1).requires_grad_()
    assert torch.autograd.gradcheck(op(version), (x,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_training_step(device, version, dtype, seed):
    weight = random_tensor(3 * 129, dtype, device).reshape(3, 129).requires_grad_()
    features = random_tensor(3 * 129, dtype, device).reshape(3, 129)
    optimizer = torch.optim.SGD([weight], lr=0.5)
    loss = op(version)(weight * features)
    loss.backward()
    assert weight.grad.shape == weight.shape and weight.grad.dtype == dtype
    assert torch.equal(weight.grad, features)
    before = weight.detach().clone()
    optimizer.step()
    assert torch.equal(weight.detach(), before - 0.5 * features)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_no_graph_without_grad(device, version):
    x = random_tensor(100, torch.float32, device).requires_grad_()
    with torch.no_grad():
        assert op(version)(x).grad_fn is None
    assert op(version)(x).grad_fn is not None


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA devices")
@pytest.mark.parametrize("version", VERSIONS)
def test_tensor_on_another_device(version, seed):
    torch.cuda.set_device(0)
    x = random_tensor(1_000_003, torch.float32, "cuda:1")
    result = op(version)(x)
    assert result.device == x.device
    assert_close_to_reference(result, x)
