

def test_template_arguments_split_at_top_level_commas_only():
    # A constant's value written in a template argument compares inside its parentheses.
    from barrier.inline_device import _split_top_level

    assert _split_top_level("(f(((K::n)<32?(K::n):32))),0,(K::c),std::pair<int, float>") == [
        "(f(((K::n)<32?(K::n):32)))", "0", "(K::c)", "std::pair<int, float>"]
