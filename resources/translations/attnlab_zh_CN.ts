<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="zh_CN">
<context>
    <name>ColorLegend</name>
    <message>
        <source>NaN</source>
        <translation>NaN</translation>
    </message>
</context>
<context>
    <name>ColorScheme</name>
    <message>
        <source>Cividis (colour-blind safe)</source>
        <translation>Cividis（色盲友好）</translation>
    </message>
    <message>
        <source>Grayscale (for printing)</source>
        <translation>灰度（适合打印）</translation>
    </message>
    <message>
        <source>Viridis</source>
        <translation>Viridis</translation>
    </message>
</context>
<context>
    <name>ErrorText</name>
    <message>
        <source>field "%1": </source>
        <translation>字段“%1”：</translation>
    </message>
    <message>
        <source>every sentence should be a string of at most 1 MiB</source>
        <translation>每个句子都应为不超过 1 MiB 的字符串</translation>
    </message>
    <message>
        <source>should be a list of at most 4096 sentences</source>
        <translation>应为最多包含 4096 个句子的列表</translation>
    </message>
    <message>
        <source>should be an object with "en" and "zh"</source>
        <translation>应为包含 "en" 和 "zh" 的对象</translation>
    </message>
    <message>
        <source>should be an object</source>
        <translation>应为对象</translation>
    </message>
    <message>
        <source>should be a string</source>
        <translation>应为字符串</translation>
    </message>
    <message>
        <source>should be a whole number</source>
        <translation>应为整数</translation>
    </message>
    <message>
        <source>should be 0 or 1 … 4096</source>
        <translation>应为 0 或 1 … 4096</translation>
    </message>
    <message>
        <source>should be between 1 and 2^30</source>
        <translation>应介于 1 与 2^30 之间</translation>
    </message>
    <message>
        <source>cannot be used: </source>
        <translation>无法使用：</translation>
    </message>
    <message>
        <source>larger than 16 MiB: not a session file</source>
        <translation>大于 16 MiB：不是会话文件</translation>
    </message>
    <message>
        <source>not valid JSON (damaged or not a session file)</source>
        <translation>不是有效的 JSON（文件已损坏或不是会话文件）</translation>
    </message>
    <message>
        <source>not an Attention Lab session (no "format": "attnlab-session")</source>
        <translation>不是 Attention Lab 会话（缺少 "format": "attnlab-session"）</translation>
    </message>
    <message>
        <source>missing or not a positive whole number</source>
        <translation>缺失或不是正整数</translation>
    </message>
    <message>
        <source>saved by a newer Attention Lab (session version %1; this one reads up to version %2): open it with a newer Attention Lab</source>
        <translation>由更新版本的 Attention Lab 保存（会话版本 %1；当前版本最高只能读取版本 %2）：请用更新版本的 Attention Lab 打开</translation>
    </message>
    <message>
        <source>no sentences: a session needs at least one</source>
        <translation>没有句子：会话至少需要一个句子</translation>
    </message>
    <message>
        <source>base64 text whose length is not a multiple of 4</source>
        <translation>base64 文本的长度不是 4 的倍数</translation>
    </message>
    <message>
        <source>misplaced base64 padding</source>
        <translation>base64 填充位置错误</translation>
    </message>
    <message>
        <source>'%1' is not a base64 character</source>
        <translation>“%1”不是 base64 字符</translation>
    </message>
    <message>
        <source>%1 is outside %2 … %3</source>
        <translation>%1 超出范围 %2 … %3</translation>
    </message>
    <message>
        <source>%1 heads do not divide d_model %2</source>
        <translation>d_model %2 不能被头数 %1 整除</translation>
    </message>
    <message>
        <source>must be a positive number below 1</source>
        <translation>必须是小于 1 的正数</translation>
    </message>
    <message>
        <source>'%1' is not one of %2</source>
        <translation>“%1”不是以下取值之一：%2</translation>
    </message>
    <message>
        <source>text contains a NUL character</source>
        <translation>文本包含 NUL 字符</translation>
    </message>
    <message>
        <source>text is not valid UTF-8</source>
        <translation>文本不是有效的 UTF-8</translation>
    </message>
    <message>
        <source>no sentence given</source>
        <translation>未提供句子</translation>
    </message>
    <message>
        <source>sentence %1 is empty or blank; type at least one word</source>
        <translation>句子 %1 为空或只含空白；请至少输入一个词</translation>
    </message>
    <message>
        <source>metadata '%1' = '%2' is not a number</source>
        <translation>元数据“%1” = “%2”不是数字</translation>
    </message>
    <message>
        <source>%1 conflicts with %2 stored in '%3'; drop the option or use another weights file</source>
        <translation>%1 与“%3”中存储的 %2 冲突；请去掉该选项或改用其他权重文件</translation>
    </message>
    <message>
        <source>tensor '%1' is missing or not 2-D</source>
        <translation>张量“%1”缺失或不是二维张量</translation>
    </message>
    <message>
        <source>tensor '%1' has shape %2, expected (3·D, D)</source>
        <translation>张量“%1”的形状为 %2，应为 (3·D, D)</translation>
    </message>
    <message>
        <source>tensor '%1' has shape %2 but the configuration needs %3</source>
        <translation>张量“%1”的形状为 %2，但当前配置需要 %3</translation>
    </message>
    <message>
        <source>tensor '%1' holds a non-finite value (NaN or ∞) at element %2</source>
        <translation>张量“%1”在元素 %2 处含有非有限值（NaN 或 ∞）</translation>
    </message>
    <message>
        <source>tensor '%1' is not a parameter of this model</source>
        <translation>张量“%1”不是此模型的参数</translation>
    </message>
    <message>
        <source>tensor '%1' is missing</source>
        <translation>张量“%1”缺失</translation>
    </message>
    <message>
        <source>'%1' holds an encoder–decoder model; give a source sentence</source>
        <translation>“%1”包含编码器–解码器模型；请提供源句子</translation>
    </message>
    <message>
        <source>'%1' holds an encoder only; cross-attention needs decoder layers</source>
        <translation>“%1”只包含编码器；交叉注意力需要解码器层</translation>
    </message>
    <message>
        <source>'%1' has no metadata, so the number of heads must be given</source>
        <translation>“%1”没有元数据，因此必须指定头数</translation>
    </message>
    <message>
        <source>metadata field '%1' is missing</source>
        <translation>元数据字段“%1”缺失</translation>
    </message>
    <message>
        <source>metadata format '%1' is not attnlab-weights/1 (a newer version?)</source>
        <translation>元数据格式“%1”不是 attnlab-weights/1（可能是更新的版本？）</translation>
    </message>
    <message>
        <source>the stored configuration is invalid: </source>
        <translation>存储的配置无效：</translation>
    </message>
    <message>
        <source>tensor '%1' has dtype %2; only F32, F16 and BF16 are supported</source>
        <translation>张量“%1”的数据类型为 %2；仅支持 F32、F16 和 BF16</translation>
    </message>
    <message>
        <source>tensor '%1' has an invalid dimension in its shape</source>
        <translation>张量“%1”的形状中有无效的维度</translation>
    </message>
    <message>
        <source>tensor '%1' has an invalid shape</source>
        <translation>张量“%1”的形状无效</translation>
    </message>
    <message>
        <source>tensor '%1' is impossibly large</source>
        <translation>张量“%1”的大小超出合理范围</translation>
    </message>
    <message>
        <source>file is shorter than its 8-byte header length</source>
        <translation>文件不足 8 字节，无法读取文件头长度</translation>
    </message>
    <message>
        <source>header length %1 runs past the end of the file (%2 bytes)</source>
        <translation>文件头长度 %1 超出了文件末尾（文件共 %2 字节）</translation>
    </message>
    <message>
        <source>header is not a JSON object</source>
        <translation>文件头不是 JSON 对象</translation>
    </message>
    <message>
        <source>__metadata__ is not an object of strings</source>
        <translation>__metadata__ 不是值均为字符串的对象</translation>
    </message>
    <message>
        <source>__metadata__ value '%1' is not a string</source>
        <translation>__metadata__ 中“%1”的值不是字符串</translation>
    </message>
    <message>
        <source>tensor '%1' lacks dtype, shape or data_offsets</source>
        <translation>张量“%1”缺少 dtype、shape 或 data_offsets 字段</translation>
    </message>
    <message>
        <source>tensor '%1' has invalid data_offsets</source>
        <translation>张量“%1”的 data_offsets 无效</translation>
    </message>
    <message>
        <source>tensor '%1' has data_offsets [%2, %3] outside the %4 data bytes</source>
        <translation>张量“%1”的 data_offsets [%2, %3] 超出了 %4 字节的数据区</translation>
    </message>
    <message>
        <source>tensor '%1' shape %2 needs %3 bytes but its data_offsets span %4</source>
        <translation>张量“%1”的形状 %2 需要 %3 字节，但其 data_offsets 跨度为 %4</translation>
    </message>
    <message>
        <source>tensors '%1' and '%2' overlap (data_offsets)</source>
        <translation>张量“%1”和“%2”的 data_offsets 区间重叠</translation>
    </message>
    <message>
        <source>(d_model must be heads × d_head; try %1 heads with d_model %2)</source>
        <translation>（d_model 必须等于头数 × d_head；可以试试 %1 个头配 d_model %2）</translation>
    </message>
    <message>
        <source>should be 0 … the number of sentences − 1</source>
        <translation>应为 0 … 句子数 − 1</translation>
    </message>
    <message>
        <source>should be 0 … heads − 1</source>
        <translation>应为 0 … 头数 − 1</translation>
    </message>
    <message>
        <source>; computed on the CPU</source>
        <translation>；已改用 CPU 计算</translation>
    </message>
    <message>
        <source>built without Vulkan</source>
        <translation>构建时未包含 Vulkan</translation>
    </message>
    <message>
        <source>Vulkan: the loader libvulkan.so.1 is not installed (Debian: apt-get install libvulkan1)</source>
        <translation>Vulkan：未安装加载器 libvulkan.so.1（Debian：apt-get install libvulkan1）</translation>
    </message>
    <message>
        <source>Vulkan: no driver (Debian: apt-get install mesa-vulkan-drivers, or the GPU's driver)</source>
        <translation>Vulkan：没有驱动（Debian：apt-get install mesa-vulkan-drivers，或安装 GPU 自带的驱动）</translation>
    </message>
    <message>
        <source>Vulkan: no device (install a driver; Debian's mesa-vulkan-drivers has lavapipe)</source>
        <translation>Vulkan：没有设备（请安装驱动；Debian 的 mesa-vulkan-drivers 包含 lavapipe）</translation>
    </message>
    <message>
        <source>Vulkan: no GPU, only a CPU-type device (lavapipe); --backend vulkan uses it, auto does not</source>
        <translation>Vulkan：没有 GPU，只有 CPU 类型的设备（lavapipe）；--backend vulkan 会使用它，auto 不会</translation>
    </message>
    <message>
        <source>this build has no Vulkan compute path (built without the Vulkan headers or glslc); use --backend cpu or auto</source>
        <translation>这个版本没有 Vulkan 计算路径（构建时缺少 Vulkan 头文件或 glslc）；请使用 --backend cpu 或 auto</translation>
    </message>
    <message>
        <source>base64 padding bits that are not zero</source>
        <translation>base64 的填充位不为零</translation>
    </message>
    <message>
        <source>give one source sentence for all, or one per --text (%1 sentences, %2 source sentences)</source>
        <translation>请给出一个供所有句子共用的源句子，或为每个 --text 各给一个（%1 个句子，%2 个源句子）</translation>
    </message>
    <message>
        <source>%1 sentences are more than the limit of %2</source>
        <translation>%1 个句子超过了上限 %2</translation>
    </message>
    <message>
        <source>this run needs about %1 (</source>
        <translation>这次运行大约需要 %1（</translation>
    </message>
    <message>
        <source>trace %1, </source>
        <translation>追踪 %1，</translation>
    </message>
    <message>
        <source>weights %1, working %2</source>
        <translation>权重 %1，工作内存 %2</translation>
    </message>
    <message>
        <source>), more than the budget of %1 MiB; </source>
        <translation>），超过了 %1 MiB 的预算；</translation>
    </message>
    <message>
        <source>shorten the text, use fewer layers or a smaller d_model</source>
        <translation>请缩短文本、减少层数或减小 d_model</translation>
    </message>
    <message>
        <source>, or raise --memory-budget</source>
        <translation>，或者提高 --memory-budget</translation>
    </message>
    <message>
        <source>(layers count from 0)</source>
        <translation>（层从 0 开始计数）</translation>
    </message>
    <message>
        <source>a causal mask cannot be kept, because the projection mixes every position's key, the future included; use --mask padding or none</source>
        <translation>无法保留因果掩码，因为投影会混合每个位置的键，包括未来的位置；请使用 --mask padding 或 none</translation>
    </message>
    <message>
        <source>the walk-through records 4 steps per token, and %1 tokens would make %2 of them; use at most %3 tokens, or another variant</source>
        <translation>逐步演示每个词元记录 4 个步骤，%1 个词元会产生 %2 个步骤；请最多使用 %3 个词元，或换一种变体</translation>
    </message>
    <message>
        <source>%1 tokens in blocks of %2 keys make %3 rounds of the walk-through; raise it to at least %4 (at most %5 rounds)</source>
        <translation>%1 个词元按每块 %2 个键分块，逐步演示要走 %3 轮；请把它调到至少 %4（最多 %5 轮）</translation>
    </message>
    <message>
        <source>metadata 'cross_attention' = '%1' is not one of true, false</source>
        <translation>元数据“cross_attention” = “%1”不是 true、false 之一</translation>
    </message>
    <message>
        <source>metadata 'cross_attention' = '%1' contradicts its tensors (it has decoder layers)</source>
        <translation>元数据“cross_attention” = “%1”与文件中的张量矛盾（文件含有解码器层）</translation>
    </message>
    <message>
        <source>metadata 'cross_attention' = '%1' contradicts its tensors (it has no decoder layers)</source>
        <translation>元数据“cross_attention” = “%1”与文件中的张量矛盾（文件没有解码器层）</translation>
    </message>
    <message>
        <source>should be a whole number 0 … 2^64 − 1</source>
        <translation>应为 0 … 2^64 − 1 之间的整数</translation>
    </message>
    <message>
        <source>should hold one source sentence for all, or one per sentence (%1 sentences, %2 source sentences)</source>
        <translation>应为所有句子给出一个源句，或每个句子各给一个（%1 个句子，%2 个源句）</translation>
    </message>
    <message>
        <source>text holds only control characters</source>
        <translation>文本只包含控制字符</translation>
    </message>
    <message>
        <source>the sentence is empty or blank; type at least one word</source>
        <translation>句子为空或只有空白；请至少输入一个词</translation>
    </message>
    <message>
        <source>weights file '%1': </source>
        <translation>权重文件“%1”：</translation>
    </message>
    <message>
        <source>session file '%1': </source>
        <translation>会话文件“%1”：</translation>
    </message>
    <message>
        <source>exercise file '%1': </source>
        <translation>练习文件“%1”：</translation>
    </message>
    <message>
        <source>cannot open it: </source>
        <translation>无法打开：</translation>
    </message>
    <message>
        <source>cannot read it: </source>
        <translation>无法读取：</translation>
    </message>
    <message>
        <source>too many symbolic links (a link that points to itself?)</source>
        <translation>符号链接层数过多（链接指向了自身？）</translation>
    </message>
    <message>
        <source>a part of the path is not a folder</source>
        <translation>路径中有一部分不是文件夹</translation>
    </message>
    <message>
        <source>permission denied</source>
        <translation>没有权限</translation>
    </message>
    <message>
        <source>the name is too long</source>
        <translation>名称过长</translation>
    </message>
    <message>
        <source>is a folder, not a file</source>
        <translation>是文件夹，不是文件</translation>
    </message>
    <message>
        <source>is a named pipe (FIFO), not a regular file</source>
        <translation>是命名管道（FIFO），不是常规文件</translation>
    </message>
    <message>
        <source>is a device, not a regular file</source>
        <translation>是设备，不是常规文件</translation>
    </message>
    <message>
        <source>is a socket, not a regular file</source>
        <translation>是套接字，不是常规文件</translation>
    </message>
    <message>
        <source>is not a regular file</source>
        <translation>不是常规文件</translation>
    </message>
    <message>
        <source>is %1, larger than the limit of %2 for such a file</source>
        <translation>大小为 %1，超过此类文件 %2 的上限</translation>
    </message>
    <message>
        <source>it changed while being read; try again</source>
        <translation>读取时文件发生了变化；请重试</translation>
    </message>
    <message>
        <source>no file name given</source>
        <translation>未给出文件名</translation>
    </message>
    <message>
        <source>the file name contains a NUL character</source>
        <translation>文件名包含 NUL 字符</translation>
    </message>
    <message>
        <source>no such file</source>
        <translation>文件不存在</translation>
    </message>
    <message>
        <source>the forward pass overflowed float32 at step '%1' (%2): it made ∞ or NaN from finite inputs</source>
        <translation>前向传播在步骤“%1”（%2）超出了 float32 的范围：有限的输入得出了 ∞ 或 NaN</translation>
    </message>
    <message>
        <source>; it reads </source>
        <translation>；该步骤读取 </translation>
    </message>
    <message>
        <source> (largest |value| %1)</source>
        <translation>（最大 |值| %1）</translation>
    </message>
    <message>
        <source>. The weights are too large for this input: check the weights file, or scale them down</source>
        <translation>。对这个输入来说权重太大：请检查权重文件，或把权重缩小</translation>
    </message>
    <message>
        <source>--out: '%1' appeared while the export ran (another export or program made it); nothing was replaced. Choose another folder, or add --force to replace an earlier bundle</source>
        <translation>输出文件夹“%1”在导出期间出现了（由另一次导出或别的程序创建）；没有替换任何内容。请选择另一个文件夹，或允许替换之前的数据包</translation>
    </message>
    <message>
        <source>--out: '%1' is not an Attention Lab bundle (no manifest.json of one), so even --force does not replace it; choose a new folder</source>
        <translation>“%1”不是 Attention Lab 数据包（其中没有数据包的 manifest.json），所以即使允许替换也不会替换它；请选择一个新文件夹</translation>
    </message>
    <message>
        <source>--out: '%1' changed while the export ran and is no longer a bundle; nothing was replaced</source>
        <translation>“%1”在导出期间发生了变化，已不再是数据包；没有替换任何内容</translation>
    </message>
    <message>
        <source>cannot move the bundle into '%1': </source>
        <translation>无法把数据包移到“%1”：</translation>
    </message>
    <message>
        <source>'%1' exists already; nothing was replaced</source>
        <translation>“%1”已经存在；没有替换任何内容</translation>
    </message>
    <message>
        <source>the header holds a NUL byte (padded with NULs? only spaces may pad it)</source>
        <translation>文件头含有 NUL 字节（用 NUL 填充了吗？只能用空格填充）</translation>
    </message>
    <message>
        <source>header is not a JSON object (it must start with '{')</source>
        <translation>文件头不是 JSON 对象（必须以“{”开头）</translation>
    </message>
    <message>
        <source>the header names '%1' twice; a name may appear once</source>
        <translation>文件头中名称“%1”出现了两次；每个名称只能出现一次</translation>
    </message>
    <message>
        <source>the data bytes %1 … %2 before tensor '%3' belong to no tensor (a gap in data_offsets)</source>
        <translation>张量“%3”之前的数据字节 %1 … %2 不属于任何张量（data_offsets 中有空隙）</translation>
    </message>
    <message>
        <source>the file has %1 bytes after its last tensor that belong to none (trailing bytes)</source>
        <translation>文件在最后一个张量之后还有 %1 个不属于任何张量的字节（多余的尾部字节）</translation>
    </message>
    <message>
        <source>--attention: '%1' is not one of full, tiled, auto</source>
        <translation>--attention：“%1”不是 full、tiled、auto 之一</translation>
    </message>
    <message>
        <source>--memory-budget: must be a positive number of MiB</source>
        <translation>--memory-budget：必须是以 MiB 计的正数</translation>
    </message>
    <message>
        <source>%1: no exercise "%2" (attnlab exercise --list shows the ids)</source>
        <translation>%1：没有练习 "%2"（attnlab exercise --list 列出所有 id）</translation>
    </message>
    <message>
        <source>exercise: give exactly one of --list, --show ID, --check ID, --solution ID</source>
        <translation>exercise：请恰好给出 --list、--show ID、--check ID、--solution ID 之一</translation>
    </message>
    <message>
        <source>--check: needs --answer TEXT</source>
        <translation>--check：需要 --answer TEXT</translation>
    </message>
    <message>
        <source>--answer: only with --check ID</source>
        <translation>--answer：只能与 --check ID 一起使用</translation>
    </message>
    <message>
        <source>--attempt: only with --check ID</source>
        <translation>--attempt：只能与 --check ID 一起使用</translation>
    </message>
    <message>
        <source>--text-file: '%1' line %2</source>
        <translation>--text-file：“%1”第 %2 行</translation>
    </message>
    <message>
        <source> is not valid UTF-8</source>
        <translation> 不是有效的 UTF-8</translation>
    </message>
    <message>
        <source> contains a NUL character</source>
        <translation> 含有 NUL 字符</translation>
    </message>
    <message>
        <source>--text-file: '%1' holds no sentence</source>
        <translation>--text-file：“%1”中没有句子</translation>
    </message>
    <message>
        <source>--fault: </source>
        <translation>--fault：</translation>
    </message>
    <message>
        <source>--format: %1 is drawn by the window's renderer, which this headless build leaves out; use npz or csv, or the full attnlab</source>
        <translation>--format：%1 由窗口的渲染器绘制，而这个无界面版本不含它；请使用 npz 或 csv，或使用完整的 attnlab</translation>
    </message>
    <message>
        <source>--format: '%1' is not one of npz, png, svg, csv</source>
        <translation>--format：“%1”不是 npz、png、svg、csv 之一</translation>
    </message>
    <message>
        <source>--variant: cannot run beside --fault (a planted bug changes the block it is compared with); drop one of them</source>
        <translation>--variant：不能与 --fault 同时运行（植入的错误会改变与之比较的注意力块）；请去掉其中之一</translation>
    </message>
    <message>
        <source>--weights: the file name is empty; give the path of a .safetensors file</source>
        <translation>--weights：文件名为空；请给出 .safetensors 文件的路径</translation>
    </message>
    <message>
        <source>--text-file: the file name is empty; give the path of a text file</source>
        <translation>--text-file：文件名为空；请给出文本文件的路径</translation>
    </message>
    <message>
        <source>--text: the sentence is empty; type at least one word</source>
        <translation>--text：句子为空；请至少输入一个词</translation>
    </message>
    <message>
        <source>sentence %1: </source>
        <translation>句子 %1：</translation>
    </message>
    <message>
        <source>'%1' is not a device index (0, 1, …; see vulkaninfo)</source>
        <translation>“%1”不是设备编号（0、1、…；参见 vulkaninfo）</translation>
    </message>
    <message>
        <source>; computed on the CPU instead</source>
        <translation>；已改用 CPU 重新计算</translation>
    </message>
    <message>
        <source>Vulkan: %1 failed: %2 (%3:%4)</source>
        <translation>Vulkan：%1 失败：%2（%3:%4）</translation>
    </message>
    <message>
        <source>VK_ERROR_INCOMPATIBLE_DRIVER (no Vulkan driver)</source>
        <translation>VK_ERROR_INCOMPATIBLE_DRIVER（没有 Vulkan 驱动）</translation>
    </message>
    <message>
        <source>an unknown VkResult</source>
        <translation>未知的 VkResult</translation>
    </message>
    <message>
        <source>Vulkan: a buffer of %1 MiB is beyond this device's storage buffer range of %2 MiB</source>
        <translation>Vulkan：%1 MiB 的缓冲区超出了此设备 %2 MiB 的存储缓冲区范围</translation>
    </message>
    <message>
        <source>Vulkan: libvulkan.so.1 has no vkGetInstanceProcAddr</source>
        <translation>Vulkan：libvulkan.so.1 中没有 vkGetInstanceProcAddr</translation>
    </message>
    <message>
        <source>Vulkan: the loader lacks %1</source>
        <translation>Vulkan：加载器缺少 %1</translation>
    </message>
    <message>
        <source>Vulkan: the instance lacks %1</source>
        <translation>Vulkan：实例缺少 %1</translation>
    </message>
    <message>
        <source>Vulkan: the device lacks %1</source>
        <translation>Vulkan：设备缺少 %1</translation>
    </message>
    <message>
        <source>Vulkan: ATTNLAB_VULKAN_DEVICE=%1 but there are only %2 devices (0 to %3)</source>
        <translation>Vulkan：ATTNLAB_VULKAN_DEVICE=%1，但只有 %2 个设备（0 到 %3）</translation>
    </message>
    <message>
        <source>Vulkan: ATTNLAB_VULKAN_DEVICE=%1 is %2, a CPU-type device: --backend auto does not use it, --backend vulkan does</source>
        <translation>Vulkan：ATTNLAB_VULKAN_DEVICE=%1 是 %2，一个 CPU 类型的设备：--backend auto 不会使用它，--backend vulkan 会</translation>
    </message>
    <message>
        <source>Vulkan: %1 supports Vulkan 1.%2; the shaders need 1.2</source>
        <translation>Vulkan：%1 支持 Vulkan 1.%2；着色器需要 1.2</translation>
    </message>
    <message>
        <source>Vulkan: the device %1 has no compute queue</source>
        <translation>Vulkan：设备 %1 没有计算队列</translation>
    </message>
    <message>
        <source>Vulkan: no host-visible coherent memory type on %1</source>
        <translation>Vulkan：%1 上没有主机可见且一致的内存类型</translation>
    </message>
    <message>
        <source>Vulkan: the device did not finish within 120 s (%1)</source>
        <translation>Vulkan：设备未在 120 秒内完成（%1）</translation>
    </message>
    <message>
        <source>Vulkan: %1 MiB in one buffer is beyond %2's storage buffer range; use --backend cpu</source>
        <translation>Vulkan：一个缓冲区中的 %1 MiB 超出了 %2 的存储缓冲区范围；请使用 --backend cpu</translation>
    </message>
    <message>
        <source>Vulkan: a product of %1 × %2 × %3 needs more workgroups than the device guarantees</source>
        <translation>Vulkan：%1 × %2 × %3 的乘积需要的工作组数多于设备保证的数量</translation>
    </message>
    <message>
        <source>Vulkan: the weight %1 is beyond %2's storage buffer range</source>
        <translation>Vulkan：权重 %1 超出了 %2 的存储缓冲区范围</translation>
    </message>
    <message>
        <source>Vulkan: one slice of %1 @ %2 is beyond %3's storage buffer range</source>
        <translation>Vulkan：%1 @ %2 的一个切片超出了 %3 的存储缓冲区范围</translation>
    </message>
    <message>
        <source>Vulkan: a row of %1 floats is beyond the buffer range</source>
        <translation>Vulkan：一行 %1 个浮点数超出了缓冲区范围</translation>
    </message>
    <message>
        <source>cross-attention needs --memory-text</source>
        <translation>交叉注意力需要 --memory-text</translation>
    </message>
    <message>
        <source>--memory-text needs a decoder</source>
        <translation>--memory-text 需要解码器</translation>
    </message>
    <message>
        <source>the sentences were prepared without the trained model's vocabulary; prepare them with it</source>
        <translation>这些句子准备时没有使用训练模型的词表；请用它重新准备</translation>
    </message>
    <message>
        <source>softmax temperature must be a positive number, got %1</source>
        <translation>softmax 温度必须是正数，实际为 %1</translation>
    </message>
    <message>
        <source>histogram: needs at least one bin and hi &gt; lo</source>
        <translation>histogram：至少需要一个区间，且 hi &gt; lo</translation>
    </message>
    <message>
        <source>leave out --trace, use a shorter --seq or fewer --layers</source>
        <translation>请去掉 --trace、使用更短的 --seq 或更少的 --layers</translation>
    </message>
    <message>
        <source>use --attention tiled (no score matrix) or a shorter --seq</source>
        <translation>请使用 --attention tiled（不生成分数矩阵）或更短的 --seq</translation>
    </message>
    <message>
        <source>%1: </source>
        <translation>%1：</translation>
    </message>
    <message>
        <source>%1 heads do not divide d_model %2 of '%3'</source>
        <translation>“%3”的 d_model %2 不能被头数 %1 整除</translation>
    </message>
    <message>
        <source>metadata '%1': </source>
        <translation>元数据“%1”：</translation>
    </message>
    <message>
        <source>tensor '%1' belongs to a trained model, but metadata 'vocab' (its vocabulary) is missing</source>
        <translation>张量“%1”属于训练好的模型，但缺少元数据“vocab”（它的词表）</translation>
    </message>
    <message>
        <source>safetensors: </source>
        <translation>safetensors：</translation>
    </message>
    <message>
        <source>manifest '%1': </source>
        <translation>清单“%1”：</translation>
    </message>
    <message>
        <source>cannot create a folder beside '%1': </source>
        <translation>无法在“%1”旁边创建文件夹：</translation>
    </message>
    <message>
        <source>cannot create a folder beside '%1'</source>
        <translation>无法在“%1”旁边创建文件夹</translation>
    </message>
    <message>
        <source>cannot move a file into '%1': </source>
        <translation>无法把文件移到“%1”：</translation>
    </message>
    <message>
        <source>cannot move '%1' aside: </source>
        <translation>无法把“%1”移到一旁：</translation>
    </message>
    <message>
        <source>--out: a folder name is required</source>
        <translation>--out：需要给出文件夹名称</translation>
    </message>
    <message>
        <source>--out: '%1' is the root folder; name a new folder for the bundle</source>
        <translation>--out：“%1”是根文件夹；请为数据包指定一个新文件夹</translation>
    </message>
    <message>
        <source>--out: '%1' is the current folder or holds it; name a new folder for the bundle, e.g. --out ./bundle</source>
        <translation>--out：“%1”是当前文件夹或包含当前文件夹；请为数据包指定一个新文件夹，例如 --out ./bundle</translation>
    </message>
    <message>
        <source>--out: '%1' has a name of %2 bytes; use at most %3 (its temporary sibling needs the rest)</source>
        <translation>--out：“%1”的名称长 %2 字节；最多只能用 %3 字节（其余留给同级的临时文件夹）</translation>
    </message>
    <message>
        <source>--out: '%1' is a symbolic link; give the folder itself or a new name (a link is never replaced)</source>
        <translation>--out：“%1”是符号链接；请给出文件夹本身或一个新名称（符号链接永远不会被替换）</translation>
    </message>
    <message>
        <source>--out: '%1' exists and is not a folder; choose a new name</source>
        <translation>--out：“%1”已存在且不是文件夹；请换一个新名称</translation>
    </message>
    <message>
        <source>--out: '%1' exists and is not empty; choose a new folder, or add --force to replace an earlier bundle</source>
        <translation>--out：“%1”已存在且不为空；请选择一个新文件夹，或加上 --force 以替换之前的数据包</translation>
    </message>
    <message>
        <source>cannot create '%1': </source>
        <translation>无法创建“%1”：</translation>
    </message>
    <message>
        <source>cannot write '%1' (disk full?)</source>
        <translation>无法写入“%1”（磁盘已满？）</translation>
    </message>
    <message>
        <source>cannot write '%1': </source>
        <translation>无法写入“%1”：</translation>
    </message>
    <message>
        <source>cannot add '%1' to '%2': </source>
        <translation>无法把“%1”添加到“%2”：</translation>
    </message>
    <message>
        <source>npz: '%1' is not a .npy array</source>
        <translation>npz：“%1”不是 .npy 数组</translation>
    </message>
    <message>
        <source>npz: '%1' has an unsupported .npy header</source>
        <translation>npz：“%1”的 .npy 文件头不受支持</translation>
    </message>
    <message>
        <source>npz: '%1' has a malformed shape</source>
        <translation>npz：“%1”的形状格式错误</translation>
    </message>
    <message>
        <source>npz: '%1' data does not match its shape</source>
        <translation>npz：“%1”的数据与其形状不符</translation>
    </message>
    <message>
        <source>cannot open '%1' as a zip archive</source>
        <translation>无法把“%1”作为 zip 压缩包打开</translation>
    </message>
    <message>
        <source>npz: bad entry</source>
        <translation>npz：条目损坏</translation>
    </message>
    <message>
        <source>npz: cannot read '%1'</source>
        <translation>npz：无法读取“%1”</translation>
    </message>
    <message>
        <source>npz: short read of '%1'</source>
        <translation>npz：读取“%1”时数据不完整</translation>
    </message>
    <message>
        <source>--text-file '%1': </source>
        <translation>--text-file 文件“%1”：</translation>
    </message>
    <message>
        <source>%1: not a folder (exercise files are read from a folder of *.json)</source>
        <translation>%1：不是文件夹（练习文件从存放 *.json 的文件夹中读取）</translation>
    </message>
    <message>
        <source>%1: no such folder (exercise files are read from a folder of *.json)</source>
        <translation>%1：没有这个文件夹（练习文件从存放 *.json 的文件夹中读取）</translation>
    </message>
    <message>
        <source>%1: cannot list the folder: %2</source>
        <translation>%1：无法列出文件夹的内容：%2</translation>
    </message>
    <message>
        <source>"%1" is already used by %2</source>
        <translation>"%1" 已被 %2 使用</translation>
    </message>
    <message>
        <source>null</source>
        <translation>null（空值）</translation>
    </message>
    <message>
        <source>a boolean</source>
        <translation>布尔值</translation>
    </message>
    <message>
        <source>an integer</source>
        <translation>整数</translation>
    </message>
    <message>
        <source>a number</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>a string</source>
        <translation>字符串</translation>
    </message>
    <message>
        <source>an array</source>
        <translation>数组</translation>
    </message>
    <message>
        <source>an object</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>expected %1, found %2</source>
        <translation>应为%1，实际为%2</translation>
    </message>
    <message>
        <source>unknown field (expected one of: %1)</source>
        <translation>未知字段（应为以下之一：%1）</translation>
    </message>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>empty</source>
        <translation>为空</translation>
    </message>
    <message>
        <source>longer than %1 bytes</source>
        <translation>超过 %1 字节</translation>
    </message>
    <message>
        <source>%1 is out of range (%2 to %3)</source>
        <translation>%1 超出范围（%2 到 %3）</translation>
    </message>
    <message>
        <source>has %1 entries (expected %2)</source>
        <translation>有 %1 项（应为 %2 项）</translation>
    </message>
    <message>
        <source>has %1 entries (expected %2 to %3)</source>
        <translation>有 %1 项（应为 %2 到 %3 项）</translation>
    </message>
    <message>
        <source>more than %1 tokens</source>
        <translation>超过 %1 个词元</translation>
    </message>
    <message>
        <source>give one source sentence for all, or one per text (%1)</source>
        <translation>请给出一个供所有句子共用的源句子，或为每个 text 各给一个（%1 个）</translation>
    </message>
    <message>
        <source>must be between 0 and 1 (exclusive)</source>
        <translation>必须介于 0 和 1 之间（不含 0 和 1）</translation>
    </message>
    <message>
        <source>"%1" is not a step of this setup</source>
        <translation>"%1" 不是此设置中的步骤</translation>
    </message>
    <message>
        <source> (the steps are listed in docs/cli.md, e.g. "encoder.layers.0.self_attn.q")</source>
        <translation>（步骤列在 docs/cli.md 中，例如 "encoder.layers.0.self_attn.q"）</translation>
    </message>
    <message>
        <source> (did you mean "%1"?)</source>
        <translation>（你是指 "%1" 吗？）</translation>
    </message>
    <message>
        <source>"%1" is not one of %2</source>
        <translation>"%1" 不是以下取值之一：%2</translation>
    </message>
    <message>
        <source>indivisible_heads cannot be an exercise: there is no correct run to compare with</source>
        <translation>indivisible_heads 不能用作练习：没有可供对比的正确运行</translation>
    </message>
    <message>
        <source>holds no word to look for</source>
        <translation>不含可供查找的词</translation>
    </message>
    <message>
        <source>%1 changes no step of this setup</source>
        <translation>%1 不会改变此设置中的任何步骤</translation>
    </message>
    <message>
        <source>the fault %1 changes %2, not "%3"</source>
        <translation>植入的错误 %1 改变的是 %2，而不是 "%3"</translation>
    </message>
    <message>
        <source>with this setup the fault %1 leaves "%2" unchanged (nothing to see); change the setup</source>
        <translation>在此设置下，植入的错误 %1 不会改变 "%2"（看不出任何差别）；请修改设置</translation>
    </message>
    <message>
        <source>expected rows of 0/1 like "1100/1110/1111"</source>
        <translation>应为由 0/1 组成的各行，如 "1100/1110/1111"</translation>
    </message>
    <message>
        <source>expected %1 rows of %2 cells</source>
        <translation>应为 %1 行，每行 %2 个格</translation>
    </message>
    <message>
        <source>give rows, cols or both</source>
        <translation>请给出 rows、cols 或两者</translation>
    </message>
    <message>
        <source>%1 differs from the setup's sentence length %2</source>
        <translation>%1 与设置中句子的长度 %2 不同</translation>
    </message>
    <message>
        <source>contradicts an earlier rule at row %1, column %2</source>
        <translation>在第 %1 行第 %2 列与前面的规则矛盾</translation>
    </message>
    <message>
        <source>missing (give rules, a target, or both)</source>
        <translation>缺失（请给出 rules、target 或两者）</translation>
    </message>
    <message>
        <source>row %1 would hide every key (its softmax would be NaN)</source>
        <translation>第 %1 行会遮住所有键（其 softmax 会是 NaN）</translation>
    </message>
    <message>
        <source>already satisfies every rule; there is nothing to do</source>
        <translation>已满足所有规则；没有需要做的</translation>
    </message>
    <message>
        <source>invalid JSON: %1</source>
        <translation>无效的 JSON：%1</translation>
    </message>
    <message>
        <source>expected one JSON object, found %1</source>
        <translation>应为一个 JSON 对象，实际为%1</translation>
    </message>
    <message>
        <source>"%1" may hold only a-z, 0-9, '-' and '_'</source>
        <translation>"%1" 只能包含 a-z、0-9、“-” 和 “_”</translation>
    </message>
    <message>
        <source>missing (kind is %1)</source>
        <translation>缺失（kind 为 %1）</translation>
    </message>
    <message>
        <source>not allowed for kind %1</source>
        <translation>kind 为 %1 时不允许出现</translation>
    </message>
    <message>
        <source>weights: </source>
        <translation>权重：</translation>
    </message>
    <message>
        <source>metadata 'vocab' %1; it must be a JSON array of distinct tokens starting "%2", "%3"</source>
        <translation>元数据 “vocab” %1；它必须是以 "%2", "%3" 开头、由互不相同的词元组成的 JSON 数组</translation>
    </message>
    <message>
        <source>is not valid JSON</source>
        <translation>不是有效的 JSON</translation>
    </message>
    <message>
        <source>is not an array</source>
        <translation>不是数组</translation>
    </message>
    <message>
        <source>holds an entry that is not a non-empty string</source>
        <translation>含有不是非空字符串的条目</translation>
    </message>
    <message>
        <source>does not start with "%1", "%2"</source>
        <translation>不是以 "%1", "%2" 开头</translation>
    </message>
    <message>
        <source>metadata 'vocab' lists "%1" twice (entries %2 and %3)</source>
        <translation>元数据 “vocab” 两次列出 "%1"（条目 %2 和 %3）</translation>
    </message>
    <message>
        <source>metadata 'examples' %1; it must be a JSON array of one-line sentences</source>
        <translation>元数据 “examples” %1；它必须是由单行句子组成的 JSON 数组</translation>
    </message>
    <message>
        <source>is not a JSON array</source>
        <translation>不是 JSON 数组</translation>
    </message>
    <message>
        <source>holds %1 sentences, more than a batch of %2</source>
        <translation>含有 %1 个句子，超过了一批最多 %2 个的上限</translation>
    </message>
    <message>
        <source>entry %1 is not a string</source>
        <translation>条目 %1 不是字符串</translation>
    </message>
    <message>
        <source>entry %1 spans several lines</source>
        <translation>条目 %1 跨越多行</translation>
    </message>
    <message>
        <source>entry %1: </source>
        <translation>条目 %1：</translation>
    </message>
    <message>
        <source>entry %1 has no token</source>
        <translation>条目 %1 没有词元</translation>
    </message>
    <message>
        <source>metadata 'mask': </source>
        <translation>元数据 “mask”：</translation>
    </message>
    <message>
        <source>metadata 'metrics' is not a JSON object</source>
        <translation>元数据 “metrics” 不是 JSON 对象</translation>
    </message>
    <message>
        <source>unknown fault '%1'; valid faults: %2</source>
        <translation>未知的错误类型 “%1”；可用的有：%2</translation>
    </message>
    <message>
        <source>%1: the sample model is missing from this build; rebuild Attention Lab</source>
        <translation>%1：此版本缺少该示例模型；请重新构建 Attention Lab</translation>
    </message>
    <message>
        <source>%1: only for opening the window; it does not go with a subcommand (export, bench, exercise)</source>
        <translation>%1：只用于打开窗口，不能与子命令（export、bench、exercise）一起使用</translation>
    </message>
    <message>
        <source>out of memory; try a smaller configuration or a lower --memory-budget</source>
        <translation>内存不足；请换用更小的配置，或调低 --memory-budget</translation>
    </message>
    <message>
        <source>"%1" is not attnlab-exercise/2 (or the older attnlab-exercise/1)</source>
        <translation>"%1" 不是 attnlab-exercise/2（也不是较早的 attnlab-exercise/1）</translation>
    </message>
    <message>
        <source>unknown loss '%1'; valid losses: %2</source>
        <translation>未知的损失 '%1'；可用的损失：%2</translation>
    </message>
    <message>
        <source>the target's shape %1 differs from the output's %2; give a target of the output's shape</source>
        <translation>目标的形状 %1 与输出的形状 %2 不同；请给出与输出形状相同的目标</translation>
    </message>
    <message>
        <source>the backward pass needs the forward step %1, which the trace lacks; trace the whole run</source>
        <translation>反向传播需要前向步骤 %1，但记录中没有它；请记录整个运行</translation>
    </message>
    <message>
        <source>the %1 loss needs a trained model's output head; use the sum or mse loss</source>
        <translation>%1 损失需要已训练模型的输出头；请使用 sum 或 mse 损失</translation>
    </message>
    <message>
        <source>--loss mse needs --target FILE.npy, a float32 or float64 array of the last layer's output shape (B, S, D)</source>
        <translation>--loss mse 需要 --target FILE.npy：一个 float32 或 float64 数组，形状与最后一层的输出 (B, S, D) 相同</translation>
    </message>
    <message>
        <source>--target '%1': </source>
        <translation>--target 文件“%1”：</translation>
    </message>
    <message>
        <source>--target: a target is read only by --loss mse or --loss per-position; add one of them or drop --target</source>
        <translation>--target：只有 --loss mse 或 --loss per-position 才读取目标；请加上其中之一，或去掉 --target</translation>
    </message>
    <message>
        <source>the per-position loss needs the answers: one token id per position (−1 or 0, [PAD], where there is none), --target FILE.npy of shape (B, S) on the command line or the answers field in the window</source>
        <translation>逐位置损失需要答案：每个位置一个词元 id（没有答案的位置用 −1 或 0，即 [PAD]）；命令行用 --target FILE.npy，形状 (B, S)，窗口里填在“答案”框中</translation>
    </message>
    <message>
        <source>the answers' shape %1 differs from the sentences' token ids %2; give one token id per position (−1 where there is none)</source>
        <translation>答案的形状 %1 与句子的词元 id 形状 %2 不同；请每个位置给一个词元 id（没有答案处用 −1）</translation>
    </message>
    <message>
        <source>the answer for sentence %1, position %2 is %3, which is not a token id of this model (0 to %4) nor −1</source>
        <translation>句子 %1、位置 %2 的答案是 %3，它既不是本模型的词元 id（0 到 %4），也不是 −1</translation>
    </message>
    <message>
        <source>%1 answers for %2 sentences; give one answer per sentence, one per line</source>
        <translation>%1 个答案对应 %2 个句子；请每个句子给一个答案，每行一个</translation>
    </message>
    <message>
        <source>answer %1 has %2 tokens but its sentence has only %3 positions; shorten the answer</source>
        <translation>答案 %1 有 %2 个词元，但它的句子只有 %3 个位置；请缩短答案</translation>
    </message>
    <message>
        <source>npz: '%1' is not a little-endian f4/f8/i4/i8 C-order array</source>
        <translation>npz：'%1' 不是小端序、C 顺序的 f4/f8/i4/i8 数组</translation>
    </message>
    <message>
        <source>--attention tiled: a planted fault or a variant needs every score step, which the tiled path does not keep; drop --attention tiled or the --fault / --variant</source>
        <translation>--attention tiled：植入的错误或注意力变体需要每一个分数步骤，而分块路径不保留它们；请去掉 --attention tiled，或去掉 --fault / --variant</translation>
    </message>
    <message>
        <source>unknown training task '%1' (use one of %2)</source>
        <translation>未知的训练任务“%1”（请用 %2 之一）</translation>
    </message>
    <message>
        <source>unknown optimiser '%1' (use adamw or sgd)</source>
        <translation>未知的优化器“%1”（请用 adamw 或 sgd）</translation>
    </message>
    <message>
        <source>the text task needs a text file to learn from (--text-file FILE)</source>
        <translation>文本任务需要一个用来学习的文本文件（--text-file 文件）</translation>
    </message>
    <message>
        <source>%1: line %2 is not UTF-8 text; give a plain text file</source>
        <translation>%1：第 %2 行不是 UTF-8 文本；请给出纯文本文件</translation>
    </message>
    <message>
        <source>%1: only %2 lines of at least two words; the text task needs at least 10 (give a longer text)</source>
        <translation>%1：至少含两个词的行只有 %2 行；文本任务至少需要 10 行（请给出更长的文本）</translation>
    </message>
    <message>
        <source>the batch and the held-out count must be at least 1, the steps at least 0</source>
        <translation>批大小和留出序列数至少为 1，步数至少为 0</translation>
    </message>
    <message>
        <source>--lr must be above 0, and --weight-decay, --clip and --momentum at least 0</source>
        <translation>--lr 必须大于 0，--weight-decay、--clip 和 --momentum 至少为 0</translation>
    </message>
    <message>
        <source>--text-file goes with --task text only</source>
        <translation>--text-file 只能与 --task text 一起使用</translation>
    </message>
    <message>
        <source>--out: '%1' exists; give another name, or --force to replace it</source>
        <translation>--out：“%1”已存在；请换一个名字，或加 --force 替换它</translation>
    </message>
    <message>
        <source>cannot write the model to '%1' (check the folder exists and has room)</source>
        <translation>无法把模型写入“%1”（请检查文件夹是否存在、空间是否足够）</translation>
    </message>
    <message>
        <source>--snapshots: '%1' exists; give a new folder's name</source>
        <translation>--snapshots：“%1”已存在；请给出一个新文件夹的名字</translation>
    </message>
    <message>
        <source>not allowed with "model" (the configuration comes from the shipped model %1)</source>
        <translation>与 "model" 不能同时使用（配置来自随附模型 %1）</translation>
    </message>
    <message>
        <source>head %1 scores %2, below at_least %3 but not by the margin %4: the question has no clear answer (use other sentences, name a layer, or change at_least or margin)</source>
        <translation>%1 号头得分 %2，低于 at_least %3，但差距不到 margin %4：这道题没有明确的答案（换几个句子、指定一层，或调整 at_least 或 margin）</translation>
    </message>
    <message>
        <source>no head reaches at_least %1 (the best, %2, scores %3): use other sentences, another model or a lower at_least</source>
        <translation>没有一个头达到 at_least %1（最好的 %2 号头得分 %3）：换几个句子、换一个模型，或降低 at_least</translation>
    </message>
    <message>
        <source>these sentences have no position where "%1" can be measured (same_token and induction need a token that occurs twice in one sentence)</source>
        <translation>这些句子里没有能测量 "%1" 的位置（same_token 和 induction 需要同一个句子里有出现两次的词元）</translation>
    </message>
    <message>
        <source>%1: the optimiser's state '%2' is missing, unexpected or of another shape; this resume point cannot be used (replay the run, or train it again)</source>
        <translation>%1：优化器状态 '%2' 缺失、多余或形状不对；这个续训点不能用（可以回放这次训练，或者重新训练）</translation>
    </message>
    <message>
        <source>--steps %1 is fewer than the %2 steps this run has done already; give at least %2</source>
        <translation>--steps %1 少于这次训练已经完成的 %2 步；请至少给 %2</translation>
    </message>
    <message>
        <source>the text file is not the one this run trained on (its words or lines differ); give the same text file</source>
        <translation>这个文本文件不是这次训练所用的那个（词或行不同）；请给出同一个文本文件</translation>
    </message>
    <message>
        <source>'%1' holds no resume point (resume-NNNNNNNN.safetensors): it can be replayed, not continued; runs recorded by this version can be</source>
        <translation>'%1' 里没有续训点（resume-NNNNNNNN.safetensors）：它只能回放，不能接着训练；本版本录制的训练可以接着训练</translation>
    </message>
    <message>
        <source>%1: the resume point is at step %2 but run.json says %3 steps were done; the folder was changed by hand</source>
        <translation>%1：续训点在第 %2 步，但 run.json 说已经完成了 %3 步；这个文件夹被手工改动过</translation>
    </message>
    <message>
        <source>--resume goes on with the run as it was set up; drop %1 (with --resume only --out, --force, --steps, --text-file, --log-every, --snapshot-every, --snapshot-at, --snapshot-dtype and --threads may be given)</source>
        <translation>--resume 按这次训练原来的设置接着训练；请去掉 %1（与 --resume 一起只能给 --out、--force、--steps、--text-file、--log-every、--snapshot-every、--snapshot-at、--snapshot-dtype 和 --threads）</translation>
    </message>
    <message>
        <source>--task is needed (or --resume DIR, to go on with a run recorded with --snapshots DIR)</source>
        <translation>需要 --task（或者用 --resume DIR 接着训练一次用 --snapshots DIR 录制的训练）</translation>
    </message>
    <message>
        <source>a text of %1 tokens is longer than the learned position table (%2 rows, --max-positions): shorten the text or use a model with more positions</source>
        <translation>一段 %1 个词元的文本超过了学习得到的位置表（%2 行，--max-positions）：请缩短文本，或使用位置更多的模型</translation>
    </message>
    <message>
        <source>tokenize: give --model DIR, a checkpoint folder with its tokenizer files</source>
        <translation>tokenize：请用 --model DIR 指定一个带分词器文件的检查点文件夹</translation>
    </message>
    <message>
        <source>tokenize: give at least one --text or a --text-file</source>
        <translation>tokenize：请至少给出一个 --text 或一个 --text-file</translation>
    </message>
    <message>
        <source>tokenizer file '%1': </source>
        <translation>分词器文件 '%1'：</translation>
    </message>
    <message>
        <source>not a JSON object mapping each piece to a whole-number id (%1)</source>
        <translation>不是把每个片段映射到整数 id 的 JSON 对象（%1）</translation>
    </message>
    <message>
        <source>the id of the piece '%1' is not a whole number from 0</source>
        <translation>片段 '%1' 的 id 不是从 0 起的整数</translation>
    </message>
    <message>
        <source>holds more than %1 entries</source>
        <translation>条目超过 %1 个</translation>
    </message>
    <message>
        <source>holds no token</source>
        <translation>不含任何词元</translation>
    </message>
    <message>
        <source>line %1 is not two pieces separated by one space: '%2'</source>
        <translation>第 %1 行不是由一个空格隔开的两个片段：'%2'</translation>
    </message>
    <message>
        <source>line %1 is not valid UTF-8 text</source>
        <translation>第 %1 行不是有效的 UTF-8 文本</translation>
    </message>
    <message>
        <source>has no '%1' token, which BERT's tokenizer needs</source>
        <translation>缺少 BERT 分词器所需的 '%1' 词元</translation>
    </message>
    <message>
        <source>model folder '%1': holds neither GPT-2's vocab.json and merges.txt nor BERT's vocab.txt</source>
        <translation>模型文件夹 '%1'：既没有 GPT-2 的 vocab.json 和 merges.txt，也没有 BERT 的 vocab.txt</translation>
    </message>
    <message>
        <source>model folder '%1': not a folder</source>
        <translation>模型文件夹 '%1'：不是文件夹</translation>
    </message>
    <message>
        <source>'%1' is not true or false</source>
        <translation>'%1' 不是 true 或 false</translation>
    </message>
    <message>
        <source>not a JSON object (%1)</source>
        <translation>不是 JSON 对象（%1）</translation>
    </message>
    <message>
        <source>the ids must be 0 … %1, each once; %2 is outside them or given twice</source>
        <translation>id 必须是 0 … %1，每个恰好一次；%2 超出范围或重复出现</translation>
    </message>
    <message>
        <source>model folder '%1': </source>
        <translation>模型文件夹“%1”：</translation>
    </message>
    <message>
        <source>model configuration '%1': </source>
        <translation>模型配置“%1”：</translation>
    </message>
    <message>
        <source>shard index '%1': </source>
        <translation>分片索引“%1”：</translation>
    </message>
    <message>
        <source>checkpoint file '%1': </source>
        <translation>检查点文件“%1”：</translation>
    </message>
    <message>
        <source>has no config.json; a Hugging Face checkpoint folder holds config.json beside model.safetensors and the tokenizer's files</source>
        <translation>没有 config.json；Hugging Face 检查点文件夹里，config.json 与 model.safetensors 和分词器文件放在一起</translation>
    </message>
    <message>
        <source>holds pytorch_model.bin but no model.safetensors; Attention Lab reads only safetensors, since a pickle file can run code when it is opened. Convert it once with docs/recipes/bin_to_safetensors.py (docs/cli.md, "Pretrained checkpoints")</source>
        <translation>只有 pytorch_model.bin，没有 model.safetensors；Attention Lab 只读取 safetensors，因为 pickle 文件在打开时可能执行代码。请用 docs/recipes/bin_to_safetensors.py 转换一次（docs/cli.md，“Pretrained checkpoints”）</translation>
    </message>
    <message>
        <source>holds neither model.safetensors nor model.safetensors.index.json (a sharded checkpoint's index)</source>
        <translation>既没有 model.safetensors，也没有 model.safetensors.index.json（分片检查点的索引）</translation>
    </message>
    <message>
        <source>'%1' is %2, not a whole number from 1</source>
        <translation>“%1”是 %2，不是从 1 起的整数</translation>
    </message>
    <message>
        <source>'%1' is %2, not a number above 0</source>
        <translation>“%1”是 %2，不是大于 0 的数</translation>
    </message>
    <message>
        <source>'%1' is %2, not true or false</source>
        <translation>“%1”是 %2，不是 true 或 false</translation>
    </message>
    <message>
        <source>'%1' is %2, not a text</source>
        <translation>“%1”是 %2，不是文本</translation>
    </message>
    <message>
        <source>describes a model Attention Lab cannot run: </source>
        <translation>描述的模型 Attention Lab 无法运行：</translation>
    </message>
    <message>
        <source>has no 'weight_map' object naming each tensor's file</source>
        <translation>没有指明每个张量所在文件的“weight_map”对象</translation>
    </message>
    <message>
        <source>the tensor '%1' is placed in '%2', which is not a .safetensors file name inside the folder</source>
        <translation>张量“%1”被放在“%2”中，这不是该文件夹内的 .safetensors 文件名</translation>
    </message>
    <message>
        <source>places the tensor '%1' in '%2', which does not hold it</source>
        <translation>把张量“%1”放在“%2”中，但该文件里没有它</translation>
    </message>
    <message>
        <source>the tensor '%1' is in two files, '%2' and '%3'</source>
        <translation>张量“%1”同时出现在两个文件中：“%2”和“%3”</translation>
    </message>
    <message>
        <source>the checkpoint lacks the tensor '%1'</source>
        <translation>检查点缺少张量“%1”</translation>
    </message>
    <message>
        <source>the tensor '%1' is given twice, with and without the '%2' prefix</source>
        <translation>张量“%1”出现了两次：带“%2”前缀的和不带的</translation>
    </message>
    <message>
        <source>the tensor '%1' has shape %2, but config.json's sizes need %3</source>
        <translation>张量“%1”的形状是 %2，但按 config.json 的尺寸应为 %3</translation>
    </message>
    <message>
        <source>holds a %1 tokenizer, but a %2 checkpoint needs %3</source>
        <translation>里面是 %1 分词器，但 %2 检查点需要 %3</translation>
    </message>
    <message>
        <source>the tokenizer has %1 pieces but the embedding table %2 rows (config.json's vocab_size); they must be the same</source>
        <translation>分词器有 %1 个词片，而嵌入表有 %2 行（config.json 的 vocab_size）；两者必须相同</translation>
    </message>
    <message>
        <source>text %1: the tokenizer cut the piece '%2', which its own vocabulary lacks (the tokenizer's files disagree)</source>
        <translation>文本 %1：分词器切出了词片“%2”，但它自己的词表里没有（分词器的文件互相矛盾）</translation>
    </message>
    <message>
        <source>metadata '%1' is '%2', not a row of the vocabulary (0 … %3)</source>
        <translation>元数据“%1”为“%2”，不是词表中的行（0 … %3）</translation>
    </message>
    <message>
        <source>metadata 'head_bias' is '%1', not true or false</source>
        <translation>元数据“head_bias”为“%1”，不是 true 或 false</translation>
    </message>
    <message>
        <source>the token '%1' is not in the model's vocabulary, which has no unknown row: open the checkpoint's folder (--model) so that its own tokenizer cuts the text</source>
        <translation>词元“%1”不在模型的词表中，而该词表没有未知词行：请打开检查点文件夹（--model），让它自己的分词器切分文本</translation>
    </message>
    <message>
        <source>%1 cannot be given with --model: the checkpoint's config.json sets the model</source>
        <translation>%1 不能与 --model 一起给出：模型由检查点的 config.json 决定</translation>
    </message>
    <message>
        <source>--model: the folder name is empty; give the path of a checkpoint folder (config.json, model.safetensors, the tokenizer's files)</source>
        <translation>--model：文件夹名为空；请给出检查点文件夹的路径（config.json、model.safetensors 和分词器文件）</translation>
    </message>
    <message>
        <source>needs exactly one of "file", "embedded" and "model_folder"</source>
        <translation>需要 "file"、"embedded" 和 "model_folder" 中恰好一个</translation>
    </message>
    <message>
        <source>%1 is %2; it must be %3</source>
        <translation>%1 为 %2；它必须是 %3</translation>
    </message>
    <message>
        <source>this model's vocabulary is GPT-2's byte-level pieces, which Attention Lab's word tokenizer cannot cut: open its checkpoint folder (--model, File ▸ Open model folder…) so that its own tokenizer cuts the text</source>
        <translation>该模型的词表是 GPT-2 的字节级词片，Attention Lab 的分词器无法切分：请打开它的检查点文件夹（--model，文件 ▸ 打开模型文件夹…），让它自己的分词器切分文本</translation>
    </message>
    <message>
        <source>metadata 'task' = '%1' is not next-token, per-position or masked-word</source>
        <translation>元数据 'task' = '%1' 不是 next-token、per-position 或 masked-word</translation>
    </message>
    <message>
        <source>has no 'model_type'; Attention Lab reads GPT-2, BERT and DistilBERT checkpoints (model_type "gpt2", "bert", "distilbert")</source>
        <translation>没有 'model_type'；Attention Lab 读取 GPT-2、BERT 和 DistilBERT 检查点（model_type "gpt2"、"bert"、"distilbert"）</translation>
    </message>
    <message>
        <source>model_type "%1" is not one Attention Lab reads yet; it reads GPT-2, BERT and DistilBERT checkpoints (model_type "gpt2", "bert", "distilbert")</source>
        <translation>Attention Lab 还不能读取 model_type "%1"；它读取 GPT-2、BERT 和 DistilBERT 检查点（model_type "gpt2"、"bert"、"distilbert"）</translation>
    </message>
    <message>
        <source>%1 "%2" is not an activation Attention Lab has: gelu_new, gelu_pytorch_tanh, gelu or relu</source>
        <translation>%1 "%2" 不是 Attention Lab 支持的激活函数：gelu_new、gelu_pytorch_tanh、gelu 或 relu</translation>
    </message>
    <message>
        <source>'%1' is %2, which Attention Lab does not run: it runs %4 as published (%1 %3)</source>
        <translation>'%1' 为 %2，Attention Lab 不运行这种设置：它按发布时的 %4 运行（%1 为 %3）</translation>
    </message>
    <message>
        <source>the tensor '%1' is not part of a %2 checkpoint</source>
        <translation>张量 '%1' 不属于 %2 检查点</translation>
    </message>
    <message>
        <source>position_embedding_type "%1" is not one Attention Lab runs: only "absolute" (a learned table of positions)</source>
        <translation>Attention Lab 不运行 position_embedding_type "%1"：只支持 "absolute"（学习得到的位置表）</translation>
    </message>
    <message>
        <source>--generate continues each text piece by piece, which needs a next-piece model such as GPT-2; this %1 checkpoint guesses masked words instead: type [MASK] in the text and read its predictions</source>
        <translation>--generate 逐个片段续写每段文本，需要 GPT-2 这样预测下一个片段的模型；这个 %1 检查点猜的是被遮住的词：请在文本中输入 [MASK] 并查看它的预测</translation>
    </message>
    <message>
        <source>the token-type table, the embedding LayerNorm and the masked-LM head transform (BERT's parts) belong to an encoder-only model, not one with a decoder</source>
        <translation>词元类型表、嵌入 LayerNorm 和掩码语言模型头的变换（BERT 的组成部分）属于只有编码器的模型，不能用于带解码器的模型</translation>
    </message>
    <message>
        <source>this model's vocabulary is a checkpoint tokenizer's pieces (BERT's WordPiece: [CLS], [SEP], ##ing, lower-cased), which Attention Lab's word tokenizer would cut differently: open its checkpoint folder (--model, File ▸ Open model folder…) so that its own tokenizer cuts the text</source>
        <translation>这个模型的词表是检查点分词器的词片（BERT 的 WordPiece：[CLS]、[SEP]、##ing、转为小写），Attention Lab 的单词分词器会切得不一样：请打开它的检查点文件夹（--model，文件 ▸ 打开模型文件夹…），让它自己的分词器切分文本</translation>
    </message>
    <message>
        <source>the tensor '%1' differs from '%2', which it must equal: Hugging Face ties the two into one parameter</source>
        <translation>张量 '%1' 与 '%2' 不同，而它们必须相等：Hugging Face 把两者绑定为同一个参数</translation>
    </message>
    <message>
        <source>should be a list of at most 64 layer numbers</source>
        <translation>应为至多 64 个层号组成的列表</translation>
    </message>
    <message>
        <source>layer %1 is listed twice or out of order; list each layer once, in ascending order (e.g. 0,5)</source>
        <translation>第 %1 层重复列出或顺序不对；每层只列一次，并按升序排列（例如 0,5）</translation>
    </message>
    <message>
        <source>--full-layers chooses the layers traced in full while the others run tiled: it needs --attention tiled</source>
        <translation>--full-layers 选择完整记录的层，其余各层分块计算：它需要 --attention tiled</translation>
    </message>
    <message>
        <source>is for a checkpoint folder's texts ("model_folder") only</source>
        <translation>只用于检查点文件夹（"model_folder"）的文本</translation>
    </message>
    <message>
        <source>--generate, --temperature, --top-k, --top-p and --no-kv-cache need --model: they continue each text with a pretrained checkpoint's next-piece predictions</source>
        <translation>--generate、--temperature、--top-k、--top-p 和 --no-kv-cache 需要 --model：它们用预训练检查点对下一个词片的预测来续写每段文本</translation>
    </message>
    <message>
        <source>--prepend-bos needs --model: it puts a GPT-2 checkpoint's &lt;|endoftext|&gt; before each text</source>
        <translation>--prepend-bos 需要 --model：它把 GPT-2 检查点的 &lt;|endoftext|&gt; 放在每段文本之前</translation>
    </message>
    <message>
        <source>--prepend-bos puts GPT-2's &lt;|endoftext|&gt; before each text; this %1 checkpoint's tokenizer begins every text with [CLS] already</source>
        <translation>--prepend-bos 会把 GPT-2 的 &lt;|endoftext|&gt; 放在每段文本之前；这个 %1 检查点的分词器已经让每段文本以 [CLS] 开头</translation>
    </message>
    <message>
        <source>--explain %1 reads the gradients of a loss: add --loss (sum, next-token, per-position or mse)</source>
        <translation>--explain %1 需要读取某个损失的梯度：请加上 --loss（sum、next-token、per-position 或 mse）</translation>
    </message>
    <message>
        <source>explanations read every layer's attention weights, and %1 is not in the trace (a tiled layer keeps only an overview): name every layer in --full-layers or use --attention full</source>
        <translation>解释方法需要读取每一层的注意力权重，而 %1 不在记录中（分块计算的层只保留概览）：请在 --full-layers 中列出每一层，或使用 --attention full</translation>
    </message>
    <message>
        <source>token ablation runs the model once per token: %1 tokens is beyond its limit of %2; shorten the texts or leave ablation out</source>
        <translation>词元消融对每个词元运行一次模型：%1 个词元超出了上限 %2；请缩短文本，或去掉 ablation</translation>
    </message>
    <message>
        <source>--ablate %1: the model has %2 layers of %3 heads, counted from 0</source>
        <translation>--ablate %1：模型共有 %2 层，每层 %3 个头，从 0 开始计数</translation>
    </message>
    <message>
        <source>--ablate-mode says how the heads of --ablate are knocked out: it needs --ablate</source>
        <translation>--ablate-mode 指定如何移除 --ablate 中的头：需要同时给出 --ablate</translation>
    </message>
    <message>
        <source>attention flow solves one exact max-flow per pair of tokens: %1 layers × %2 tokens is beyond its limit of %3 tokens at %1 layers; shorten the texts or leave flow out</source>
        <translation>注意力流对每一对词元求解一次精确的最大流：%1 层 × %2 个词元超出了上限（%1 层时最多 %3 个词元）；请缩短文本，或去掉 flow</translation>
    </message>
    <message>
        <source>--explain: '%1' is not one of rollout, flow, grad-attention, saliency, ablation, heads, logit-lens</source>
        <translation>--explain：'%1' 不是 rollout、flow、grad-attention、saliency、ablation、heads、logit-lens 之一</translation>
    </message>
    <message>
        <source>--explain logit-lens reads a trained model's output head, and this model has none: load a trained model (--weights) or a checkpoint (--model)</source>
        <translation>--explain logit-lens 读取训练过的模型的输出头，而这个模型没有：请加载训练过的模型（--weights）或检查点（--model）</translation>
    </message>
    <message>
        <source>--lens-top says how many tokens the logit lens keeps: add logit-lens to --explain</source>
        <translation>--lens-top 指定 logit 透镜保留多少个词元：请在 --explain 中加入 logit-lens</translation>
    </message>
    <message>
        <source>--ablate: '%1' is not LAYER.HEAD, both counted from 0 (e.g. 1.3 for layer 1, head 3; decoder.1.3 and cross.1.3 for an encoder–decoder's decoder self-attention and cross-attention)</source>
        <translation>--ablate：'%1' 不是 LAYER.HEAD（层号和头号都从 0 开始，例如 1.3 表示第 1 层第 3 个头；编码器–解码器中，decoder.1.3 和 cross.1.3 表示解码器的自注意力和交叉注意力）</translation>
    </message>
    <message>
        <source>--ablate %1 names a head of the decoder (its self-attention or its cross-attention), which only an encoder–decoder run has: add --memory-text, or name an encoder head as LAYER.HEAD</source>
        <translation>--ablate %1 指的是解码器的头（它的自注意力或交叉注意力），只有编码器–解码器运行才有：请加上 --memory-text，或用 LAYER.HEAD 指定编码器的头</translation>
    </message>
    <message>
        <source>--explain %1 follows one stack's self-attention and is not defined for an encoder–decoder run (--memory-text): there ask for rollout, grad-attention or saliency, which follow the decoder's view of the source (Chefer et al. 2021), ablation or heads</source>
        <translation>--explain %1 沿着单个堆栈的自注意力计算，没有为编码器–解码器运行（--memory-text）定义：这种运行请改用 rollout、grad-attention 或 saliency（它们沿着解码器看源句的视角计算，Chefer 等，2021），或 ablation、heads</translation>
    </message>
    <message>
        <source>should be a list of at most 4096 heads, each [layer, head] as two whole numbers</source>
        <translation>应为至多 4096 个头组成的列表，每个写作 [层, 头]，两个都是整数</translation>
    </message>
    <message>
        <source>head %1 is listed twice or out of order; list each head once as layer.head, in ascending order (e.g. 0.3,1.0)</source>
        <translation>头 %1 重复列出或顺序不对；每个头按 层.头 只列一次，并按升序排列（例如 0.3,1.0）</translation>
    </message>
    <message>
        <source>head %1 is not in this model, whose layers run from 0 to %2 and heads from 0 to %3</source>
        <translation>头 %1 不在这个模型里：它的层从 0 到 %2，头从 0 到 %3</translation>
    </message>
    <message>
        <source>head %1 is in layer %2, which --full-layers traces in full already; drop one of the two</source>
        <translation>头 %1 在第 %2 层，而 --full-layers 已经完整记录这一层；请去掉两者之一</translation>
    </message>
    <message>
        <source>'%1' is not a head; name each as layer.head, both whole numbers counted from 0 (e.g. 1.3)</source>
        <translation>“%1”不是一个头；每个头写作 层.头，两个都是从 0 数起的整数（例如 1.3）</translation>
    </message>
    <message>
        <source>--full-heads chooses heads traced cell by cell in layers that run tiled: it needs --attention tiled</source>
        <translation>--full-heads 在分块计算的层里选择逐格记录的头：它需要 --attention tiled</translation>
    </message>
</context>
<context>
    <name>ExerciseCatalog</name>
    <message>
        <source>%1: the id "%2" is already used by another exercise; this file is skipped</source>
        <translation>%1：ID“%2”已被另一个练习使用；已跳过此文件</translation>
    </message>
</context>
<context>
    <name>Exporter</name>
    <message>
        <source>Cannot write “%1”: %2</source>
        <translation>无法写入“%1”：%2</translation>
    </message>
    <message>
        <source>Export cancelled: no files were written.</source>
        <translation>导出已取消：未写入任何文件。</translation>
    </message>
    <message>
        <source>Nothing to export yet: the forward pass has not finished.</source>
        <translation>暂无可导出的内容：前向传播尚未完成。</translation>
    </message>
    <message>
        <source>the picture could not be encoded</source>
        <translation>无法对图片进行编码</translation>
    </message>
    <message>
        <source>the scale must be between 0 and 16</source>
        <translation>缩放比例必须介于 0 和 16 之间</translation>
    </message>
    <message>
        <source>the picture is too large for memory</source>
        <translation>图片太大，内存无法容纳</translation>
    </message>
    <message>
        <source>Attention heatmap exported by Attention Lab</source>
        <translation>由 Attention Lab 导出的注意力热力图</translation>
    </message>
    <message>
        <source>step %1 has no head %2 for sentence %3</source>
        <translation>步骤 %1 中，句子 %3 没有头 %2</translation>
    </message>
    <message>
        <source>The clipboard is only available from the window.</source>
        <translation>剪贴板只能在窗口中使用。</translation>
    </message>
    <message>
        <source>The picture is too large to copy.</source>
        <translation>图片太大，无法复制。</translation>
    </message>
    <message>
        <source>the folder cannot be created</source>
        <translation>无法创建该文件夹</translation>
    </message>
    <message>
        <source>Choose at least one format: PNG, SVG or CSV.</source>
        <translation>请至少选择一种格式：PNG、SVG 或 CSV。</translation>
    </message>
    <message>
        <source>Choose a folder to export into.</source>
        <translation>请选择要导出到的文件夹。</translation>
    </message>
    <message>
        <source>Cannot create the folder “%1”: its parent is missing or cannot be written to.</source>
        <translation>无法创建文件夹“%1”：其上级文件夹不存在或不可写入。</translation>
    </message>
    <message>
        <source>Cannot write into the folder “%1”: %2</source>
        <translation>无法写入文件夹“%1”：%2</translation>
    </message>
    <message>
        <source>%1, strides %2, %3</source>
        <translation>%1，步长 %2，%3</translation>
    </message>
    <message>
        <source>contiguous</source>
        <translation>连续</translation>
    </message>
    <message>
        <source>not contiguous</source>
        <translation>不连续</translation>
    </message>
    <message>
        <source>Attention Lab — the forward pass, step by step</source>
        <translation>Attention Lab —— 逐步解析前向传播</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>d_model %1 · %2 heads (d_head %3) · d_ff %4 · %5 layer(s) · mask %6 · %7-norm · %8 · positions %9 · eps %10 · seed %11%12</source>
        <translation>d_model %1 · %2 个头（d_head %3）· d_ff %4 · %5 层 · 掩码 %6 · %7-norm · %8 · 位置编码 %9 · eps %10 · 随机种子 %11%12</translation>
    </message>
    <message>
        <source> · encoder–decoder with cross-attention</source>
        <translation> · 带交叉注意力的编码器–解码器</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Computed on %1 in %2 ms.</source>
        <translation>在 %1 上计算，用时 %2 ms。</translation>
    </message>
    <message>
        <source>Decoder sentences (tokens)</source>
        <translation>解码器句子（词元）</translation>
    </message>
    <message>
        <source>Sentences (tokens)</source>
        <translation>句子（词元）</translation>
    </message>
    <message>
        <source>%1. %2</source>
        <translation>%1. %2</translation>
    </message>
    <message>
        <source>Encoder (source) sentences</source>
        <translation>编码器（源）句子</translation>
    </message>
    <message>
        <source>How to read it</source>
        <translation>阅读说明</translation>
    </message>
    <message>
        <source>Step after step, as many to a page as fit: where each sits, what happens there and why, its formula and the PyTorch line that recomputes it, what changed, and a diagram of the shapes and strides of its tensor and inputs. After each softmax come every head's weights for sentence 0: rows are queries, columns keys; masked keys are grey and hatched, NaN is magenta.</source>
        <translation>逐步排列，每页尽量多放几个步骤：每个步骤所处的位置、这里发生了什么以及为什么、它的公式和重新计算它的 PyTorch 代码、发生了哪些变化，以及其张量和输入的形状与步长示意图。每个 softmax 之后列出句子 0 在每个头上的权重：行是查询，列是键；被掩码的键显示为灰色斜线，NaN 显示为品红色。</translation>
    </message>
    <message>
        <source>Step %1 of %2 · %3</source>
        <translation>第 %1 步，共 %2 步 · %3</translation>
    </message>
    <message>
        <source>Formula</source>
        <translation>公式</translation>
    </message>
    <message>
        <source>PyTorch</source>
        <translation>PyTorch</translation>
    </message>
    <message>
        <source>What changed</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>%1 = %2 — %3</source>
        <translation>%1 = %2 — %3</translation>
    </message>
    <message>
        <source>%1 — every head, sentence 0</source>
        <translation>%1 —— 所有头，句子 0</translation>
    </message>
    <message>
        <source>Head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>Attention Lab handout</source>
        <translation>Attention Lab 讲义</translation>
    </message>
    <message>
        <source>Page %1 of %2</source>
        <translation>第 %1 页，共 %2 页</translation>
    </message>
    <message>
        <source>“%1” is a file, not a folder.</source>
        <translation>“%1”是文件，不是文件夹。</translation>
    </message>
    <message>
        <source>The folder “%1” is not empty: choose a new or empty folder, or allow replacing it.</source>
        <translation>文件夹“%1”不为空：请选择一个新的或空的文件夹，或允许替换它。</translation>
    </message>
    <message>
        <source>Could not export the bundle to “%1”: %2</source>
        <translation>无法将数据包导出到“%1”：%2</translation>
    </message>
    <message numerus="yes">
        <source>The folder “%1” already holds %n file(s) of the names this export writes (such as “%2”); nothing was replaced. Choose an empty or new folder.</source>
        <translation>
            <numerusform>文件夹“%1”中已有 %n 个文件与这次导出要写的文件同名（例如“%2”）；没有替换任何内容。请选择一个空文件夹或新文件夹。</numerusform>
        </translation>
    </message>
    <message>
        <source> · a final LayerNorm</source>
        <translation> · 最后一层之后的 LayerNorm</translation>
    </message>
    <message>
        <source> · BERT's token types, embedding LayerNorm and head transform</source>
        <translation> · BERT 的词段类型、嵌入 LayerNorm 和输出头变换</translation>
    </message>
</context>
<context>
    <name>Generation</name>
    <message>
        <source>There is no sentence %1 any more: nothing was appended.</source>
        <translation>已经没有句子 %1 了：没有追加任何内容。</translation>
    </message>
    <message>
        <source>The model drew a line break, which a sentence (one line) cannot hold: nothing was appended. Draw again, or change the seed.</source>
        <translation>模型抽到了换行符，而一个句子（一行）不能包含换行：没有追加任何内容。请再抽一次，或更换种子。</translation>
    </message>
</context>
<context>
    <name>HeatmapRenderer</name>
    <message>
        <source>masked (−∞)</source>
        <translation>被掩码（−∞）</translation>
    </message>
    <message>
        <source>NaN</source>
        <translation>NaN</translation>
    </message>
    <message>
        <source>downsampled from %1×%2 cells: each pixel is the mean of a block</source>
        <translation>由 %1×%2 个单元格降采样：每个像素是一个块的均值</translation>
    </message>
    <message>
        <source>%1×%2 cells drawn as an image (more than %3 rectangles)</source>
        <translation>%1×%2 个单元格绘制为图像（超过 %3 个矩形）</translation>
    </message>
    <message>
        <source>%1 · sentence %2 · head %3</source>
        <translation>%1 · 句子 %2 · 头 %3</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>raw score</source>
        <translation>原始分数</translation>
    </message>
    <message>
        <source>score</source>
        <translation>分数</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
</context>
<context>
    <name>Language</name>
    <message>
        <source>CPU: %1 (Eigen %2, %3 threads)</source>
        <translation>CPU：%1（Eigen %2，%3 个线程）</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>Out of memory: try shorter sentences, fewer layers or a smaller d_model.</source>
        <translation>内存不足：请尝试缩短句子、减少层数或减小 d_model。</translation>
    </message>
    <message>
        <source>%1 · layer %2</source>
        <translation>%1 · 层 %2</translation>
    </message>
    <message>
        <source>There is nothing on screen to export.</source>
        <translation>屏幕上没有可导出的内容。</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Attention Lab view</source>
        <translation>Attention Lab 视图</translation>
    </message>
    <message>
        <source>There is nothing on screen to copy.</source>
        <translation>屏幕上没有可复制的内容。</translation>
    </message>
    <message>
        <source>The imported weights (%1) are an encoder–decoder model: turn on cross-attention and give a source sentence, or use seeded weights.</source>
        <translation>导入的权重（%1）是编码器–解码器模型：请打开交叉注意力并输入源句子，或改用随机种子生成的权重。</translation>
    </message>
    <message>
        <source>The imported weights (%1) hold an encoder only: turn off cross-attention, or use seeded weights.</source>
        <translation>导入的权重（%1）只有编码器：请关闭交叉注意力，或改用随机种子生成的权重。</translation>
    </message>
    <message>
        <source>The imported weights (%1) are for d_model %2, d_ff %3 and %4 layer(s), not the configuration asked for: use seeded weights to change the sizes.</source>
        <translation>导入的权重（%1）对应 d_model %2、d_ff %3 和 %4 层，与所要求的配置不符：要改变尺寸，请改用随机种子权重。</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>As a PNG or SVG picture, or its numbers as CSV</source>
        <translation>导出为 PNG 或 SVG 图片，或把其中的数字导出为 CSV</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg);;CSV numbers (*.csv)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg);;CSV 数字 (*.csv)</translation>
    </message>
</context>
<context>
    <name>StepNames</name>
    <message>
        <source>%1 … %2</source>
        <translation>%1 … %2</translation>
    </message>
    <message>
        <source>Already contiguous: nothing was copied; %1 is the same storage as %2.</source>
        <translation>已经是连续的：没有复制任何数据；%1 与 %2 共用同一块存储。</translation>
    </message>
    <message>
        <source>Nothing computed: %1 is the same tensor as %2 %3 (same storage).</source>
        <translation>未进行计算：%1 与 %2 %3 是同一个张量（同一块存储）。</translation>
    </message>
    <message>
        <source>%1 = %2</source>
        <translation>%1 = %2</translation>
    </message>
    <message>
        <source>%1 is split into %2</source>
        <translation>%1 被拆分为 %2</translation>
    </message>
    <message>
        <source>%1 are joined into %2</source>
        <translation>%1 被合并为 %2</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>Same %1 numbers, new shape %2: %3 — no data moved (same storage).</source>
        <translation>同样的 %1 个数，新形状 %2：%3——数据没有移动（同一块存储）。</translation>
    </message>
    <message>
        <source>Axes %1 and %2 swapped</source>
        <translation>交换了轴 %1 和轴 %2</translation>
    </message>
    <message>
        <source>Axes reordered</source>
        <translation>轴的顺序已重排</translation>
    </message>
    <message>
        <source>a view, and still contiguous</source>
        <translation>这是一个视图，仍然是连续的</translation>
    </message>
    <message>
        <source>a view, not contiguous any more</source>
        <translation>这是一个视图，已不再连续</translation>
    </message>
    <message>
        <source>%1: now %2; strides %3 — %4.</source>
        <translation>%1：现在为 %2；步长 %3——%4。</translation>
    </message>
    <message>
        <source>Copied into a fresh block in C order so the next view can work; values unchanged, strides now %1.</source>
        <translation>已按 C 顺序复制到一块新内存中，以便下一个 view 能够执行；数值不变，步长现在为 %1。</translation>
    </message>
    <message>
        <source>%1 → %2: each of the %3 token vectors (%4 numbers) is multiplied by %5ᵀ (%4 × %6) and a bias is added, giving %6 new numbers per token.</source>
        <translation>%1 → %2：%3 个词元向量（每个 %4 个数）分别乘以 %5ᵀ（%4 × %6）并加上偏置，每个词元得到 %6 个新数。</translation>
    </message>
    <message>
        <source>%1 @ %2 → %3: each query's %4 outputs are the average of the value vectors, weighted by its row of attention weights.</source>
        <translation>%1 @ %2 → %3：每个查询的 %4 个输出是各值向量的加权平均，权重为该查询所在行的注意力权重。</translation>
    </message>
    <message>
        <source>%1 @ %2 → %3: %4 dot products of length %5, one per query–key pair and head; range %6.</source>
        <translation>%1 @ %2 → %3：%4 个长度为 %5 的点积，每个查询–键对和每个头各一个；范围 %6。</translation>
    </message>
    <message>
        <source>Every score divided by √Dh = √%1 = %2: the range %3 became %4.</source>
        <translation>每个分数都除以 √Dh = √%1 = %2：范围从 %3 变为 %4。</translation>
    </message>
    <message>
        <source>%1 of %2 scores set to −∞ (the masked keys); the other %3 are unchanged.</source>
        <translation>%2 个分数中有 %1 个被设为 −∞（被掩码的键）；其余 %3 个保持不变。</translation>
    </message>
    <message>
        <source>Each of the %1 rows now sums to 1 (within %2); largest weight %3, and %4 weights are exactly 0.</source>
        <translation>%1 行中每一行的和现在都为 1（误差在 %2 以内）；最大权重为 %3，有 %4 个权重恰好为 0。</translation>
    </message>
    <message>
        <source> %1 values are NaN (rows with every key masked).</source>
        <translation>有 %1 个值为 NaN（所有键都被掩码的行）。</translation>
    </message>
    <message>
        <source>Each token's %1 numbers were shifted to mean 0 and scaled to variance 1 (before: means %2 … %3, standard deviations %4 … %5), then multiplied by γ and shifted by β; shape %6 kept.</source>
        <translation>每个词元的 %1 个数先被平移到均值 0、缩放到方差 1（之前：均值 %2 … %3，标准差 %4 … %5），再乘以 γ 并加上 β；形状 %6 保持不变。</translation>
    </message>
    <message>
        <source>The sub-layer's output was added to its input x, number by number (shape %1 kept): the stream changed by %2 on average.</source>
        <translation>子层的输出被逐元素加到它的输入 x 上（形状 %1 保持不变）：残差流平均变化了 %2。</translation>
    </message>
    <message>
        <source>GELU pulled the %1 negative numbers of %2 (%3 %) towards 0 (now ≥ %4); positives are nearly unchanged.</source>
        <translation>GELU 将 %2 个数中的 %1 个负数（%3 %）拉向 0（现在 ≥ %4）；正数几乎不变。</translation>
    </message>
    <message>
        <source>ReLU set the %1 negative numbers of %2 (%3 %) to 0; the other %4 pass unchanged.</source>
        <translation>ReLU 将 %2 个数中的 %1 个负数（%3 %）置为 0；其余 %4 个数原样通过。</translation>
    </message>
    <message>
        <source>%1 mask: %2 of %3 entries are 1 (may attend), %4 are 0 (masked).</source>
        <translation>%1 掩码：%3 个元素中有 %2 个为 1（允许关注），%4 个为 0（被掩码）。</translation>
    </message>
    <message>
        <source>Input data, not computed: %1 vocabulary rows of %2 seeded numbers (range %3); row 0 ([PAD]) is all zeros.</source>
        <translation>输入数据，非计算结果：词表共 %1 行，每行 %2 个由随机种子生成的数（范围 %3）；第 0 行（[PAD]）全为零。</translation>
    </message>
    <message>
        <source>A fixed %1 = %2 code of sines and cosines (range %3): it depends on the position only, not on the token.</source>
        <translation>固定的 %1 = %2 正弦/余弦编码（范围 %3）：它只取决于位置，与词元无关。</translation>
    </message>
    <message>
        <source>The position code %1 was added to every sentence's embeddings: shape %2 kept, range now %3.</source>
        <translation>位置编码 %1 被加到每个句子的嵌入上：形状 %2 保持不变，范围现在为 %3。</translation>
    </message>
    <message>
        <source>Decoder</source>
        <translation>解码器</translation>
    </message>
    <message>
        <source>Encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>Self-attention</source>
        <translation>自注意力</translation>
    </message>
    <message>
        <source>Cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>Feed-forward</source>
        <translation>前馈网络</translation>
    </message>
    <message>
        <source>input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>%1 layer %2</source>
        <translation>%1层 %2</translation>
    </message>
    <message>
        <source>Layer %1</source>
        <translation>层 %1</translation>
    </message>
    <message>
        <source>%1/%2</source>
        <translation>%1/%2</translation>
    </message>
    <message>
        <source>%1 bins</source>
        <translation>%1 分箱</translation>
    </message>
    <message>
        <source>axis %1</source>
        <translation>轴 %1</translation>
    </message>
    <message>
        <source>Computed a new tensor %1 %2.</source>
        <translation>计算得到新张量 %1 %2。</translation>
    </message>
    <message>
        <source>Computed %1 %2 from %3.</source>
        <translation>由 %3 计算得到 %1 %2。</translation>
    </message>
    <message>
        <source>Output head</source>
        <translation>输出头</translation>
    </message>
    <message>
        <source>rank</source>
        <translation>秩</translation>
    </message>
    <message>
        <source>keys so far</source>
        <translation>已有的键</translation>
    </message>
    <message>
        <source>offset</source>
        <translation>偏移</translation>
    </message>
    <message>
        <source>new token</source>
        <translation>新词元</translation>
    </message>
    <message>
        <source>keys of the block</source>
        <translation>本块的键</translation>
    </message>
    <message>
        <source>The pattern keeps %1 of %2 query–key pairs (%3 %): only those are computed.</source>
        <translation>该模式保留了 %2 个查询–键对中的 %1 个（%3 %）：只计算这些对。</translation>
    </message>
    <message>
        <source>%1 of %2 weights are exactly 0 (pairs the variant skips or the mask hides); the others share each row's weight; largest weight %3.</source>
        <translation>%2 个权重中有 %1 个恰好为 0（变体跳过或被掩码隐藏的对）；其余的分享每行的权重；最大权重 %3。</translation>
    </message>
    <message>
        <source>Largest difference from full attention: %1; on average %2 per token.</source>
        <translation>与完整注意力的最大差异：%1；平均每个词元 %2。</translation>
    </message>
    <message>
        <source>Variant: %1</source>
        <translation>变体：%1</translation>
    </message>
    <message>
        <source>∂L/∂%1 %2: how much the loss changes per unit of each of its numbers. Range %3, norm %4; %5 of %6 exactly 0.</source>
        <translation>∂L/∂%1 %2：它的每个数增加一个单位时损失变化多少。范围 %3，范数 %4；%6 个中有 %5 个恰好为 0。</translation>
    </message>
    <message>
        <source>Parameter gradients</source>
        <translation>参数的梯度</translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>%1 is the first %2 rows of the learned position table (range %3): one vector per position, the same for every sentence.</source>
        <translation>%1 是学习得到的位置表的前 %2 行（范围 %3）：每个位置一个向量，所有句子共用。</translation>
    </message>
    <message>
        <source>Final LayerNorm</source>
        <translation>最终 LayerNorm</translation>
    </message>
    <message>
        <source>types</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Input data, not computed: %1 token ids %2, of which %3 are [PAD] (id %4).</source>
        <translation>输入数据，非计算结果：%1 个词元 id %2，其中 %3 个是 [PAD]（id %4）。</translation>
    </message>
    <message>
        <source>Each of the %1 token ids picked its row of the %2 table: %3 → %4</source>
        <translation>%1 个词元 id 各自取出 %2 表中对应的行：%3 → %4</translation>
    </message>
    <message>
        <source>%1; %2 [PAD] positions got zero vectors.</source>
        <translation>%1；%2 个 [PAD] 位置得到零向量。</translation>
    </message>
    <message>
        <source>%1; %2 [PAD] positions got row %3, the [PAD] piece's vector (not zeros).</source>
        <translation>%1；%2 个 [PAD] 位置得到第 %3 行，即 [PAD] 词元的向量（不是零）。</translation>
    </message>
</context>
<context>
    <name>StepText</name>
    <message>
        <source>Embedding table</source>
        <translation>嵌入表</translation>
    </message>
    <message>
        <source>Token ids</source>
        <translation>词元 ID</translation>
    </message>
    <message>
        <source>Token embeddings</source>
        <translation>词元嵌入</translation>
    </message>
    <message>
        <source>Sinusoidal position code</source>
        <translation>正弦位置编码</translation>
    </message>
    <message>
        <source>Layer input: embedding + position</source>
        <translation>层输入：嵌入 + 位置编码</translation>
    </message>
    <message>
        <source>Layer input (no position code)</source>
        <translation>层输入（无位置编码）</translation>
    </message>
    <message>
        <source>Attention mask</source>
        <translation>注意力掩码</translation>
    </message>
    <message>
        <source>Decoder self-attention mask</source>
        <translation>解码器自注意力掩码</translation>
    </message>
    <message>
        <source>Cross-attention mask</source>
        <translation>交叉注意力掩码</translation>
    </message>
    <message>
        <source>%1 projection</source>
        <translation>%1 投影</translation>
    </message>
    <message>
        <source>%1 projection with W_Q</source>
        <translation>用 W_Q 做 %1 投影</translation>
    </message>
    <message>
        <source>Split heads: view %1</source>
        <translation>拆分多头：view %1</translation>
    </message>
    <message>
        <source>Split heads: transpose %1</source>
        <translation>拆分多头：transpose %1</translation>
    </message>
    <message>
        <source>Transpose K</source>
        <translation>转置 K</translation>
    </message>
    <message>
        <source>Dot products QKᵀ</source>
        <translation>点积 QKᵀ</translation>
    </message>
    <message>
        <source>Scale by √d_head</source>
        <translation>除以 √d_head 进行缩放</translation>
    </message>
    <message>
        <source>Scale by √d_model</source>
        <translation>除以 √d_model 进行缩放</translation>
    </message>
    <message>
        <source>No scaling</source>
        <translation>不缩放</translation>
    </message>
    <message>
        <source>Apply the mask</source>
        <translation>应用掩码</translation>
    </message>
    <message>
        <source>Apply the mask with 0, not −∞</source>
        <translation>用 0 而非 −∞ 应用掩码</translation>
    </message>
    <message>
        <source>Softmax over the keys</source>
        <translation>沿键方向做 softmax</translation>
    </message>
    <message>
        <source>Softmax over the queries</source>
        <translation>沿查询方向做 softmax</translation>
    </message>
    <message>
        <source>Softmax before the mask</source>
        <translation>在掩码之前做 softmax</translation>
    </message>
    <message>
        <source>Softmax before the mask (fault), over the queries</source>
        <translation>在掩码之前做 softmax（植入的错误），且沿查询方向</translation>
    </message>
    <message>
        <source>Mask after the softmax</source>
        <translation>在 softmax 之后应用掩码</translation>
    </message>
    <message>
        <source>Attention weights, tiled (overview)</source>
        <translation>注意力权重，分块计算（概览）</translation>
    </message>
    <message>
        <source>Weighted sum of values</source>
        <translation>值的加权和</translation>
    </message>
    <message>
        <source>Weighted sum of values, tiled</source>
        <translation>值的加权和，分块计算</translation>
    </message>
    <message>
        <source>Merge heads: transpose</source>
        <translation>合并多头：transpose</translation>
    </message>
    <message>
        <source>Merge heads: contiguous</source>
        <translation>合并多头：contiguous</translation>
    </message>
    <message>
        <source>Merge heads: view</source>
        <translation>合并多头：view</translation>
    </message>
    <message>
        <source>Merge heads: view without transpose + contiguous</source>
        <translation>合并多头：不经 transpose + contiguous 直接 view</translation>
    </message>
    <message>
        <source>Output projection</source>
        <translation>输出投影</translation>
    </message>
    <message>
        <source>Residual connection %1</source>
        <translation>残差连接 %1</translation>
    </message>
    <message>
        <source>LayerNorm %1</source>
        <translation>LayerNorm %1</translation>
    </message>
    <message>
        <source>FFN: expand to d_ff</source>
        <translation>FFN：扩展到 d_ff</translation>
    </message>
    <message>
        <source>FFN: %1</source>
        <translation>FFN：%1</translation>
    </message>
    <message>
        <source>FFN: back to d_model</source>
        <translation>FFN：变回 d_model</translation>
    </message>
    <message>
        <source>Layer output</source>
        <translation>层输出</translation>
    </message>
    <message>
        <source>one seeded vector per distinct token</source>
        <translation>每个不同的词元对应一个由随机种子生成的向量</translation>
    </message>
    <message>
        <source>vocabulary index of each token</source>
        <translation>每个词元在词表中的索引</translation>
    </message>
    <message>
        <source>1 = may attend, 0 = masked (%1)</source>
        <translation>1 = 可以关注，0 = 被掩码（%1）</translation>
    </message>
    <message>
        <source>the look-ahead triangle is transposed: token i sees keys j ≥ i (the future), not j ≤ i</source>
        <translation>前瞻三角被转置了：词元 i 看到的是键 j ≥ i（未来），而不是 j ≤ i</translation>
    </message>
    <message>
        <source>the padding is laid along the queries, not the keys: [PAD] queries see no key, every query sees the [PAD] keys</source>
        <translation>填充沿查询方向而非键方向放置：[PAD] 查询看不到任何键，而每个查询都能看到 [PAD] 键</translation>
    </message>
    <message>
        <source>%1 = x·W_Qᵀ + b_Q — the Q rows of in_proj again, not the %2 rows</source>
        <translation>%1 = x·W_Qᵀ + b_Q —— 又用了 in_proj 中 Q 的那几行，而不是 %2 的那几行</translation>
    </message>
    <message>
        <source>QKᵀ / √D, √D = %1 — should be √Dh = %2</source>
        <translation>QKᵀ / √D, √D = %1 —— 应为 √Dh = %2</translation>
    </message>
    <message>
        <source>scores + (−∞ where mask = 0)</source>
        <translation>分数 + (掩码为 0 处取 −∞)</translation>
    </message>
    <message>
        <source>scores with 0 where mask = 0: a masked key keeps e^(0 − max) / Σ &gt; 0 of the weight</source>
        <translation>在掩码为 0 处填 0 的分数：被掩码的键仍保留 e^(0 − max) / Σ &gt; 0 的权重</translation>
    </message>
    <message>
        <source>each row sums to 1</source>
        <translation>每行之和为 1</translation>
    </message>
    <message>
        <source>A = softmax(scores, dim = −2): each column sums to 1, the rows do not</source>
        <translation>A = softmax(scores, dim = −2)：每列之和为 1，各行则不然</translation>
    </message>
    <message>
        <source>softmax(scores, dim = %1) of the unmasked scores: masked keys take their share too</source>
        <translation>对尚未施加掩码的分数做 softmax(scores, dim = %1)：被掩码的键也分走了一份权重</translation>
    </message>
    <message>
        <source>A block by block, never whole</source>
        <translation>A 逐块计算，从不完整保存</translation>
    </message>
    <message>
        <source>a cell: %1 queries' mean weight on %2 keys</source>
        <translation>每个单元格：%1 个查询对 %2 个键的平均权重</translation>
    </message>
    <message>
        <source>copy into C order so that view() can work</source>
        <translation>复制为 C 顺序，以便 view() 能正常工作</translation>
    </message>
    <message>
        <source>(x − mean) / √(var + ε) · γ + β  (over D, biased var)</source>
        <translation>(x − mean) / √(var + ε) · γ + β（沿 D 计算，使用有偏方差）</translation>
    </message>
    <message>
        <source>the stream leaving this layer</source>
        <translation>离开本层的残差流</translation>
    </message>
    <message>
        <source>%1 (fault)</source>
        <translation>%1（植入的错误）</translation>
    </message>
    <message>
        <source>The sentences become integers: each token is replaced by its row number in the vocabulary. Shorter sentences are filled up with [PAD] (id 0) so that the batch is a rectangle of B rows and S columns.</source>
        <translation>句子被转换成整数：每个词元都替换为它在词表中的行号。较短的句子用 [PAD]（id 0）补齐，使整个批次成为 B 行 S 列的矩形。</translation>
    </message>
    <message>
        <source>Each id picks its row of the embedding table. The batch is now a (B, S, D) tensor: one vector per token. Nothing here knows about word order yet — the same word gets the same vector wherever it stands.</source>
        <translation>每个 ID 取出嵌入表中对应的那一行。此时批次是一个 (B, S, D) 张量：每个词元对应一个向量。到这里还没有任何关于词序的信息——同一个词无论出现在哪里，得到的向量都相同。</translation>
    </message>
    <message>
        <source>The mask says which keys each query may look at (1) and which it must ignore (0). Padding masks hide the [PAD] keys, which carry no meaning; a causal mask hides the keys that come later, so that a token cannot peek at the future.</source>
        <translation>掩码规定了每个查询可以查看哪些键（1）、必须忽略哪些键（0）。填充掩码隐藏不携带任何含义的 [PAD] 键；因果掩码隐藏位置靠后的键，使词元无法偷看未来。</translation>
    </message>
    <message>
        <source>The decoder's own mask is causal: while producing token t it may only look at tokens up to t, exactly as when it generates text one token at a time. Padding is hidden as well.</source>
        <translation>解码器自身的掩码是因果掩码：生成词元 t 时，它只能查看 t 及之前的词元，这与逐个词元生成文本时的情形完全一致。填充同样会被隐藏。</translation>
    </message>
    <message>
        <source>In cross-attention the queries come from the decoder and the keys from the encoder's sentence. Only the encoder's padding is hidden: every decoder token may read the whole source sentence.</source>
        <translation>在交叉注意力中，查询来自解码器，键来自编码器处理的句子。只有编码器一侧的填充被隐藏：每个解码器词元都可以读取整个源句子。</translation>
    </message>
    <message>
        <source>A learned linear map turns each token's vector into its query: what this token is looking for. The same matrix W_Q is applied to every token, so the shape stays (B, S, D).</source>
        <translation>一个可学习的线性映射把每个词元的向量变成它的查询，表示这个词元在寻找什么。同一个矩阵 W_Q 作用于每个词元，因此形状仍为 (B, S, D)。</translation>
    </message>
    <message>
        <source>A second linear map gives each token its key: what it offers to be found by. A query and a key that point in a similar direction will give a large score later.</source>
        <translation>第二个线性映射为每个词元生成它的键，表示它可以凭借什么被找到。方向相近的查询和键，稍后会得到较大的分数。</translation>
    </message>
    <message>
        <source>The third linear map gives each token its value: the content it hands over when another token attends to it. Keys decide who is read; values are what is read.</source>
        <translation>第三个线性映射为每个词元生成它的值，即其他词元关注它时它所交出的内容。键决定读取谁，值则是被读取的内容。</translation>
    </message>
    <message>
        <source>view cuts the last axis D into H heads of Dh = D / H numbers each. No number moves in memory: the same storage is read with a new shape, (B, S, H, Dh). Each head will work on its own slice of the vector.</source>
        <translation>view 把最后一个轴 D 切分成 H 个头，每个头 Dh = D / H 个数。内存中没有任何数被移动：同一块存储只是以新的形状 (B, S, H, Dh) 来读取。每个头将处理向量中属于自己的那一段。</translation>
    </message>
    <message>
        <source>transpose swaps the sequence and head axes to (B, H, S, Dh), so that each head holds a (S, Dh) matrix and all heads can be processed as one batch. Only the strides change; the tensor is no longer contiguous.</source>
        <translation>transpose 交换序列轴和头轴，得到 (B, H, S, Dh)，这样每个头都持有一个 (S, Dh) 矩阵，所有头可以作为一个批次一起处理。改变的只有步长；张量不再是连续的。</translation>
    </message>
    <message>
        <source>To multiply queries by keys, the keys are turned on their side: (S, Dh) becomes (Dh, S) in every head. Again only the strides change.</source>
        <translation>为了让查询与键相乘，需要把键“侧过来”：每个头中的 (S, Dh) 变为 (Dh, S)。同样，改变的只有步长。</translation>
    </message>
    <message>
        <source>Every query is compared with every key by a dot product. The result is one (S, S) score matrix per head: row i says how strongly token i's query matches each key.</source>
        <translation>每个查询都通过点积与每个键进行比较。结果是每个头一个 (S, S) 分数矩阵：第 i 行表示词元 i 的查询与各个键的匹配程度。</translation>
    </message>
    <message>
        <source>The dot products grow with the length Dh of the vectors. Dividing by √Dh keeps their spread near 1 whatever the head size, so the softmax that follows is not pushed into a near one-hot choice with vanishing gradients.</source>
        <translation>点积的大小会随向量长度 Dh 的增大而增大。除以 √Dh 后，无论头的大小如何，其离散程度都保持在 1 左右，这样后面的 softmax 就不会被推向近乎 one-hot 的选择，从而避免梯度消失。</translation>
    </message>
    <message>
        <source>Where the mask is 0 the score is replaced by −∞. After the softmax e^(−∞) = 0, so those keys get a weight of exactly zero, and the remaining keys share the whole weight.</source>
        <translation>掩码为 0 的位置，分数被替换为 −∞。softmax 之后 e^(−∞) = 0，因此这些键的权重恰好为零，全部权重由其余的键分享。</translation>
    </message>
    <message>
        <source>A softmax taken before the mask: the hidden keys still take part, so the weight they grab is missing from the keys that should have had it. This is the planted bug to find.</source>
        <translation>在掩码之前就做了 softmax：被隐藏的键仍参与其中，它们占去的权重本该属于其他键，于是那些键的权重变少了。这就是需要找出的植入错误。</translation>
    </message>
    <message>
        <source>The softmax turns each row of scores into weights that are positive and sum to 1: how much of each key this query will read. These are the attention heatmaps, one per head.</source>
        <translation>softmax 把每一行分数转换为均为正数且和为 1 的权重，表示这个查询将从每个键读取多少。这些就是注意力热力图，每个头一张。</translation>
    </message>
    <message>
        <source>The tiled path never holds a whole (S, S) weight matrix, so this heatmap is an overview: each cell is the average weight a group of queries gives a group of keys. Rows still sum to 1.</source>
        <translation>分块路径从不保存完整的 (S, S) 权重矩阵，因此这张热力图只是概览：每个单元格表示一组查询分配给一组键的平均权重。每行之和仍为 1。</translation>
    </message>
    <message>
        <source>Each query's output is the weighted average of the value vectors, using its row of weights. A token thereby gathers information from the tokens it attends to; every head does this separately.</source>
        <translation>每个查询的输出是各个值向量的加权平均，权重取自它对应的那一行。词元由此从它所关注的词元那里汇集信息；每个头各自独立地完成这一过程。</translation>
    </message>
    <message>
        <source>The heads are put back side by side: transpose returns to (B, S, H, Dh), so that each token's results from all heads sit next to each other.</source>
        <translation>把各个头重新并排放回：transpose 恢复为 (B, S, H, Dh)，这样每个词元在所有头上的结果就紧挨在一起。</translation>
    </message>
    <message>
        <source>After the transpose the numbers are not in row order in memory, and view needs them to be. contiguous() copies them into a fresh, ordered block.</source>
        <translation>transpose 之后，这些数在内存中不再按行序排列，而 view 要求它们按行序排列。contiguous() 会把它们复制到一块新的、按顺序排列的内存中。</translation>
    </message>
    <message>
        <source>view glues the H head outputs of each token into one vector of length D again: (B, S, D), the same shape that came in.</source>
        <translation>view 再次把每个词元的 H 个头的输出拼接成一个长度为 D 的向量：(B, S, D)，与输入时的形状相同。</translation>
    </message>
    <message>
        <source>A last linear map W_O mixes the heads' results. Without it each head's output would stay in its own slice of the vector; with it, the heads can combine what they found.</source>
        <translation>最后一个线性映射 W_O 将各个头的结果混合起来。没有它，每个头的输出只能停留在向量中属于自己的那一段；有了它，各个头就能把各自的发现结合起来。</translation>
    </message>
    <message>
        <source>The sublayer's result is added to its input rather than replacing it. This keeps the original signal flowing through deep stacks and gives gradients a short path back.</source>
        <translation>子层的结果被加到它的输入上，而不是取而代之。这使原始信号能够贯穿很深的层堆叠，也为梯度提供了一条回传的捷径。</translation>
    </message>
    <message>
        <source>LayerNorm rescales each token's vector to mean 0 and variance 1, then applies a learned scale γ and shift β. It keeps the numbers in a stable range from layer to layer; pre-norm applies it before each sublayer, post-norm after the residual.</source>
        <translation>LayerNorm 把每个词元的向量重新缩放为均值 0、方差 1，再施加可学习的缩放 γ 和平移 β。它使数值在层与层之间保持在稳定的范围内；pre-norm 在每个子层之前应用它，post-norm 则在残差连接之后应用。</translation>
    </message>
    <message>
        <source>The feed-forward network works on each token on its own, with no mixing between tokens. Its first linear map widens each vector from D to d_ff numbers (often 4·D).</source>
        <translation>前馈网络对每个词元单独处理，词元之间不发生混合。它的第一个线性映射把每个向量从 D 个数扩展为 d_ff 个数（通常为 4·D）。</translation>
    </message>
    <message>
        <source>A non-linearity (ReLU or GELU) bends the numbers. Without it the two linear maps would collapse into one, and stacking layers would add no expressive power.</source>
        <translation>非线性函数（ReLU 或 GELU）使数值发生“弯折”。没有它，两个线性映射就会合并成一个，堆叠再多层也不会增加任何表达能力。</translation>
    </message>
    <message>
        <source>The second linear map brings each vector back from d_ff to D numbers, so that it can be added to the residual stream.</source>
        <translation>第二个线性映射把每个向量从 d_ff 个数变回 D 个数，以便将其加到残差流上。</translation>
    </message>
    <message>
        <source>What this layer hands on: the same shape it received, (B, S, D), with every token now informed by the tokens it attended to. The next layer starts from here.</source>
        <translation>本层向后传递的内容：形状与它接收时相同，仍为 (B, S, D)，但现在每个词元都融入了它所关注的词元的信息。下一层从这里开始。</translation>
    </message>
    <message>
        <source>Here the queries come from the decoder's tokens.</source>
        <translation>这里的查询来自解码器的词元。</translation>
    </message>
    <message>
        <source>Here the keys and values come from the encoder's output: the source sentence.</source>
        <translation>这里的键和值来自编码器的输出，即源句子。</translation>
    </message>
    <message>
        <source>The score matrix is (T, S): decoder tokens down, source tokens across.</source>
        <translation>分数矩阵的形状是 (T, S)：纵向为解码器词元，横向为源词元。</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>an explanation, then its cross-attention note</comment>
        <translation>%1%2</translation>
    </message>
    <message>
        <source>Scores scaled by √d_model instead of √d_head</source>
        <translation>分数除以了 √d_model，而不是 √d_head</translation>
    </message>
    <message>
        <source>Scores not scaled at all</source>
        <translation>分数完全没有缩放</translation>
    </message>
    <message>
        <source>Softmax over the queries (dim = −2) instead of the keys</source>
        <translation>softmax 沿查询方向（dim = −2）而不是沿键方向</translation>
    </message>
    <message>
        <source>Mask applied after the softmax</source>
        <translation>掩码在 softmax 之后才施加</translation>
    </message>
    <message>
        <source>Mask filled with 0 instead of −∞</source>
        <translation>掩码位置填了 0 而不是 −∞</translation>
    </message>
    <message>
        <source>Padding mask broadcast along the wrong axis</source>
        <translation>填充掩码沿错误的轴广播</translation>
    </message>
    <message>
        <source>Head split as one view, without the transpose</source>
        <translation>拆分多头只用了一次 view，缺少 transpose</translation>
    </message>
    <message>
        <source>Head merge as one view, without transpose + contiguous</source>
        <translation>合并多头只用了一次 view，缺少 transpose + contiguous</translation>
    </message>
    <message>
        <source>Look-ahead mask transposed</source>
        <translation>前瞻（因果）掩码被转置</translation>
    </message>
    <message>
        <source>One projection (W_Q) shared by Q, K and V</source>
        <translation>Q、K、V 共用同一个投影（W_Q）</translation>
    </message>
    <message>
        <source>d_model not divisible by heads, forced through</source>
        <translation>d_model 不能被头数整除，却被强行执行</translation>
    </message>
    <message>
        <source>Embedding table (trained)</source>
        <translation>嵌入表（训练所得）</translation>
    </message>
    <message>
        <source>Output head: logits</source>
        <translation>输出头：logits</translation>
    </message>
    <message>
        <source>Output head: probabilities</source>
        <translation>输出头：概率</translation>
    </message>
    <message>
        <source>the model's vocabulary index of each token</source>
        <translation>每个词元在模型词表中的序号</translation>
    </message>
    <message>
        <source>[PAD] = 0, unknown → [UNK] = 1</source>
        <translation>[PAD] = 0，未知词 → [UNK] = 1</translation>
    </message>
    <message>
        <source>the model's learned vector for each of its %1 vocabulary entries (V, D)</source>
        <translation>模型为词表中 %1 个条目各学到的一个向量 (V, D)</translation>
    </message>
    <message>
        <source>logits = x Wᵀ + b, one score per vocabulary entry (B, S, V)</source>
        <translation>logits = x Wᵀ + b，词表中每个条目一个分数 (B, S, V)</translation>
    </message>
    <message>
        <source>softmax over the vocabulary: position i's guess at token i + 1</source>
        <translation>在词表上做 softmax：位置 i 对第 i + 1 个词元的猜测</translation>
    </message>
    <message>
        <source>softmax over the vocabulary: position i's guess at the answer's token i</source>
        <translation>在词表上做 softmax：位置 i 对答案第 i 个词元的猜测</translation>
    </message>
    <message>
        <source>Each row of this table is one token's vector, d_model long. A trained model learned its rows, one for every entry of its vocabulary ([UNK] stands for every word it does not know); with random weights each distinct word of the batch gets seeded random numbers, so two runs with the same seed agree exactly. The padding token's row is all zeros.</source>
        <translation>表中每一行是一个词元的向量，长度为 d_model。训练过的模型学到了这些行，词表里每个条目一行（[UNK] 代表它不认识的所有词）；使用随机权重时，批次中每个不同的词得到一组按种子生成的随机数，所以种子相同的两次运行结果完全一致。填充词元那一行全为零。</translation>
    </message>
    <message>
        <source>A trained model's output head turns each position's final vector into one score per vocabulary entry: a dot product with that entry's row of W, plus a bias. A high score means the model thinks that token belongs here. This is where all the attention above pays off.</source>
        <translation>训练过的模型用输出头把每个位置的最终向量变成词表中每个条目的一个分数：与该条目在 W 中那一行做点积，再加上偏置。分数高，说明模型认为那个词元应该出现在这里。前面所有注意力计算的成果就体现在这里。</translation>
    </message>
    <message>
        <source>Softmax turns the scores into probabilities that sum to 1 over the vocabulary. For a language model, position i's row is its guess at the next token; for a task like sorting, its guess at the answer's token at position i. The Predictions panel lists the best ones.</source>
        <translation>softmax 把分数变成在整个词表上总和为 1 的概率。对语言模型来说，位置 i 这一行是它对下一个词元的猜测；对排序这类任务，则是它对答案第 i 个词元的猜测。“预测”面板列出了概率最高的几个。</translation>
    </message>
    <message>
        <source>Sliding-window pattern</source>
        <translation>滑动窗口模式</translation>
    </message>
    <message>
        <source>BigBird block pattern</source>
        <translation>BigBird 分块模式</translation>
    </message>
    <message>
        <source>Top-k pattern</source>
        <translation>Top-k 模式</translation>
    </message>
    <message>
        <source>Softmax over the pattern's keys</source>
        <translation>在模式保留的键上做 softmax</translation>
    </message>
    <message>
        <source>Weighted sum of values (variant)</source>
        <translation>值的加权和（变体）</translation>
    </message>
    <message>
        <source>Difference from full attention</source>
        <translation>与完整注意力的差异</translation>
    </message>
    <message>
        <source>Relative-bias table</source>
        <translation>相对偏置表</translation>
    </message>
    <message>
        <source>Relative-position bias</source>
        <translation>相对位置偏置</translation>
    </message>
    <message>
        <source>ALiBi bias</source>
        <translation>ALiBi 偏置</translation>
    </message>
    <message>
        <source>Softmax of the biased scores</source>
        <translation>加偏置后分数的 softmax</translation>
    </message>
    <message>
        <source>Axial pattern: same grid row</source>
        <translation>轴向模式：同一网格行</translation>
    </message>
    <message>
        <source>Axial pattern: same grid column</source>
        <translation>轴向模式：同一网格列</translation>
    </message>
    <message>
        <source>Axial: softmax within the row</source>
        <translation>轴向：行内 softmax</translation>
    </message>
    <message>
        <source>Axial: softmax within the column</source>
        <translation>轴向：列内 softmax</translation>
    </message>
    <message>
        <source>Axial: row outputs</source>
        <translation>轴向：行阶段输出</translation>
    </message>
    <message>
        <source>Axial: column outputs (the result)</source>
        <translation>轴向：列阶段输出（结果）</translation>
    </message>
    <message>
        <source>Axial: effective weights</source>
        <translation>轴向：等效权重</translation>
    </message>
    <message>
        <source>Linformer projection E</source>
        <translation>Linformer 投影 E</translation>
    </message>
    <message>
        <source>Project the keys to rank k</source>
        <translation>把键投影到秩 k</translation>
    </message>
    <message>
        <source>Project the values to rank k</source>
        <translation>把值投影到秩 k</translation>
    </message>
    <message>
        <source>Softmax over the projected keys</source>
        <translation>在投影后的键上做 softmax</translation>
    </message>
    <message>
        <source>Weighted sum of the projected values</source>
        <translation>投影后值的加权和</translation>
    </message>
    <message>
        <source>Linformer: effective weights</source>
        <translation>Linformer：等效权重</translation>
    </message>
    <message>
        <source>Feature map of the queries</source>
        <translation>查询的特征映射</translation>
    </message>
    <message>
        <source>Feature map of the keys</source>
        <translation>键的特征映射</translation>
    </message>
    <message>
        <source>Key–value summary</source>
        <translation>键值汇总</translation>
    </message>
    <message>
        <source>Key sum (the normaliser)</source>
        <translation>键之和（归一化项）</translation>
    </message>
    <message>
        <source>Linear attention output (running sums)</source>
        <translation>线性注意力输出（累积和）</translation>
    </message>
    <message>
        <source>Linear attention output</source>
        <translation>线性注意力输出</translation>
    </message>
    <message>
        <source>The same weights, the quadratic way</source>
        <translation>同样的权重，用二次方式写出</translation>
    </message>
    <message>
        <source>Quadratic form's output</source>
        <translation>二次形式的输出</translation>
    </message>
    <message>
        <source>KV cache: append the new key</source>
        <translation>KV 缓存：追加新键</translation>
    </message>
    <message>
        <source>KV cache: append the new value</source>
        <translation>KV 缓存：追加新值</translation>
    </message>
    <message>
        <source>KV cache: the new token attends to the cache</source>
        <translation>KV 缓存：新词元关注缓存</translation>
    </message>
    <message>
        <source>KV cache: output of the new token</source>
        <translation>KV 缓存：新词元的输出</translation>
    </message>
    <message>
        <source>KV cache: every step's output</source>
        <translation>KV 缓存：每一步的输出</translation>
    </message>
    <message>
        <source>Full causal attention (the reference)</source>
        <translation>完整因果注意力（参照）</translation>
    </message>
    <message>
        <source>Tiled: scores of one key block</source>
        <translation>分块：一个键块的分数</translation>
    </message>
    <message>
        <source>Tiled: running maximum</source>
        <translation>分块：累积最大值</translation>
    </message>
    <message>
        <source>Tiled: rescale factor</source>
        <translation>分块：重缩放因子</translation>
    </message>
    <message>
        <source>Tiled: running sum</source>
        <translation>分块：累积和</translation>
    </message>
    <message>
        <source>Tiled: running output</source>
        <translation>分块：累积输出</translation>
    </message>
    <message>
        <source>Tiled: normalise</source>
        <translation>分块：归一化</translation>
    </message>
    <message>
        <source>keep |i − j| ≤ %1, plus the first %2 tokens as global rows and columns</source>
        <translation>保留 |i − j| ≤ %1，另加前 %2 个词元作为全局行和列</translation>
    </message>
    <message>
        <source>blocks of %1 tokens: own block ±1, the first %2 blocks global, %3 seeded random blocks per query block and head</source>
        <translation>每块 %1 个词元：本块 ±1，前 %2 块为全局块，每个查询块和每个头另有 %3 个按种子随机抽取的块</translation>
    </message>
    <message>
        <source>per query, keep the keys scoring at least its %1-th largest visible score (ties kept)</source>
        <translation>对每个查询，保留分数不低于其第 %1 大可见分数的键（并列者都保留）</translation>
    </message>
    <message>
        <source>chosen from the scores, so it changes with the input</source>
        <translation>由分数选出，因此随输入而变</translation>
    </message>
    <message>
        <source>one number per head and offset j − i clipped to ±%1 (H, %2)</source>
        <translation>每个头、每个偏移 j − i（截断到 ±%1）一个数 (H, %2)</translation>
    </message>
    <message>
        <source>−m_h·|i − j| with slopes m_h = 2^(−8(h+1)/H): far keys lose score, steeply in the first heads</source>
        <translation>−m_h·|i − j|，斜率 m_h = 2^(−8(h+1)/H)：远处的键被扣分，前几个头扣得最多</translation>
    </message>
    <message>
        <source>tokens laid out %1 per row</source>
        <translation>词元按每行 %1 个排成网格</translation>
    </message>
    <message>
        <source>keep keys in the query's row</source>
        <translation>只保留与查询同一行的键</translation>
    </message>
    <message>
        <source>keep keys in the query's column</source>
        <translation>只保留与查询同一列的键</translation>
    </message>
    <message>
        <source>A = softmax(QKᵀ/√Dh over the row's keys)</source>
        <translation>A = softmax(QKᵀ/√Dh，只在本行的键上)</translation>
    </message>
    <message>
        <source>A = softmax(QKᵀ/√Dh over the column's keys)</source>
        <translation>A = softmax(QKᵀ/√Dh，只在本列的键上)</translation>
    </message>
    <message>
        <source>A_col·(A_row·V): in two hops a query reaches every key whose row has a token in its column</source>
        <translation>A_col·(A_row·V)：两跳之内，查询可到达所在行与其所在列有交点的每个键</translation>
    </message>
    <message>
        <source>A_col·A_row: how much each key reaches each query through both stages</source>
        <translation>A_col·A_row：经过两个阶段后每个键对每个查询的影响</translation>
    </message>
    <message>
        <source>A = softmax(QKᵀ/√Dh over the pattern's keys)</source>
        <translation>A = softmax(QKᵀ/√Dh，只在模式保留的键上)</translation>
    </message>
    <message>
        <source>only those pairs are computed</source>
        <translation>只计算这些查询–键对</translation>
    </message>
    <message>
        <source>a row with none is 0</source>
        <translation>一个键都没有的行为 0</translation>
    </message>
    <message>
        <source>A = softmax(QKᵀ/√Dh + bias, −∞ where masked)</source>
        <translation>A = softmax(QKᵀ/√Dh + 偏置，被掩码处为 −∞)</translation>
    </message>
    <message>
        <source>max over heads and Dh of |O_variant − O_full| per query</source>
        <translation>对每个查询，在所有头和 Dh 上取 |O_variant − O_full| 的最大值</translation>
    </message>
    <message>
        <source>0 where the query's own key is masked</source>
        <translation>查询自身的键被掩码时为 0</translation>
    </message>
    <message>
        <source>(%1, %2) seeded normals / √%3, shared by keys and values</source>
        <translation>(%1, %2) 按种子生成的正态随机数 / √%3，键和值共用</translation>
    </message>
    <message>
        <source>rows sum to Σ E, not 1, and may go negative</source>
        <translation>每行之和为 Σ E 而不是 1，且可能为负</translation>
    </message>
    <message>
        <source>rows of masked keys 0</source>
        <translation>被掩码的键所在行为 0</translation>
    </message>
    <message>
        <source>causal: the state after the last key</source>
        <translation>因果：最后一个键之后的状态</translation>
    </message>
    <message>
        <source>project token %1 only</source>
        <translation>只投影词元 %1</translation>
    </message>
    <message>
        <source>the cache grows to %1 keys</source>
        <translation>缓存增长到 %1 个键</translation>
    </message>
    <message>
        <source>the cache grows to %1 values</source>
        <translation>缓存增长到 %1 个值</translation>
    </message>
    <message>
        <source>softmax(q_t·K_cacheᵀ / √Dh) over keys 0…%1</source>
        <translation>softmax(q_t·K_cacheᵀ / √Dh)，在键 0…%1 上</translation>
    </message>
    <message>
        <source>softmax(QKᵀ/√Dh, −∞ above the diagonal and where masked)·V, all at once</source>
        <translation>softmax(QKᵀ/√Dh，对角线以上和被掩码处为 −∞)·V，一次算完</translation>
    </message>
    <message>
        <source>r = e^(m_old − m_new) ≤ 1: what was summed under the old maximum shrinks</source>
        <translation>r = e^(m_old − m_new) ≤ 1：按旧最大值累加的部分随之缩小</translation>
    </message>
    <message>
        <source>Which query–key pairs the sliding window computes (1) and which it skips (0): a band around the diagonal, plus the global tokens' rows and columns. Everything outside the band is never scored, which is where the savings on long texts come from.</source>
        <translation>滑动窗口计算哪些查询–键对（1），跳过哪些（0）：对角线周围的一条带，再加上全局词元所在的行和列。带外的对根本不计算分数，长文本上的节省正来自这里。</translation>
    </message>
    <message>
        <source>BigBird's pattern works on blocks of tokens: each query block reads its own and the neighbouring blocks, the global blocks and a few random blocks (a different draw per head). The random links let information cross the text quickly although most pairs are skipped.</source>
        <translation>BigBird 的模式以词元块为单位：每个查询块读取本块和相邻块、全局块以及几个随机块（每个头抽取不同）。虽然大多数对被跳过，随机连接仍能让信息很快传遍全文。</translation>
    </message>
    <message>
        <source>Top-k looks at the real scores first and keeps, for each query, only its k highest keys. Unlike a window, the pattern depends on the text: change a word and different keys survive. It saves the softmax and the weighted sum, not the scores themselves.</source>
        <translation>Top-k 先看真实的分数，再为每个查询只保留分数最高的 k 个键。与窗口不同，这个模式取决于文本：换一个词，留下的键就可能不同。它节省的是 softmax 和加权和，而不是分数本身。</translation>
    </message>
    <message>
        <source>The softmax runs only over the keys the pattern kept, so each row still sums to 1 but the weight that full attention gave to the skipped keys is shared among the kept ones. Compare with the full weights: where they differ, the variant changes the result.</source>
        <translation>softmax 只在模式保留的键上进行，因此每行之和仍为 1，但完整注意力原本分给被跳过的键的权重，现在由保留的键分掉。与完整注意力的权重对比：两者不同之处，就是变体改变结果的地方。</translation>
    </message>
    <message>
        <source>The variant's output: each query's weighted average of the values, in the same (B, H, S, Dh) layout as the block's own head_out, so the two can be compared number by number.</source>
        <translation>变体的输出：每个查询对值的加权平均，布局与本模块自己的 head_out 相同，都是 (B, H, S, Dh)，因此两者可以逐个数比较。</translation>
    </message>
    <message>
        <source>How far the variant lands from full attention: for each token, the largest absolute difference over heads and features between the two outputs. Zero means the variant changed nothing for that token; the Variant panel draws these numbers as bars.</source>
        <translation>变体离完整注意力有多远：对每个词元，取两个输出在所有头和特征上的最大绝对差。为零表示变体对该词元毫无改变；变体面板把这些数画成柱状图。</translation>
    </message>
    <message>
        <source>A small table with one number per head and per distance j − i, clipped at the largest distance. A trained model learns these numbers; here they are seeded. Every pair of tokens at the same distance gets the same entry, wherever it stands in the text.</source>
        <translation>一张小表：每个头、每个距离 j − i 各一个数，超过最大距离的截断。训练好的模型会学习这些数，这里用随机种子生成。距离相同的每一对词元，无论在文本中的什么位置，都取同一个表项。</translation>
    </message>
    <message>
        <source>The table spread out over all query–key pairs: entry (i, j) is the table's number for the distance j − i. The diagonal stripes show that the bias depends only on how far apart two tokens are.</source>
        <translation>把表铺到所有查询–键对上：第 (i, j) 项是表中距离 j − i 对应的数。斜向的条纹说明偏置只取决于两个词元相隔多远。</translation>
    </message>
    <message>
        <source>ALiBi subtracts slope × distance from every score. Each head has its own fixed slope: the first heads punish distance steeply and look locally, the last ones gently and look far. Nothing is learned, and it works for texts longer than any seen in training.</source>
        <translation>ALiBi 从每个分数中减去 斜率 × 距离。每个头有自己固定的斜率：前几个头对距离惩罚很重，只看附近；后几个头惩罚很轻，能看得远。它不需要学习任何参数，对比训练时更长的文本也适用。</translation>
    </message>
    <message>
        <source>The usual softmax, taken after the bias is added to every score. All pairs are still computed, so this is not cheaper: it changes which keys win, making attention aware of relative position.</source>
        <translation>给每个分数加上偏置之后，再做通常的 softmax。所有对仍然都要计算，所以并不更省：它改变的是哪些键胜出，让注意力感知相对位置。</translation>
    </message>
    <message>
        <source>The usual softmax after the distance penalty: near keys gain weight, far keys lose it, the more so in the heads with the steepest slope. Every pair is still computed.</source>
        <translation>加上距离惩罚后再做通常的 softmax：近处的键得到更多权重，远处的键失去权重，斜率越陡的头越明显。所有对仍然都要计算。</translation>
    </message>
    <message>
        <source>The text is written into a grid, a few tokens per row. In the first stage a query reads only the keys of its own grid row: blocks along the diagonal.</source>
        <translation>把文本写进一个网格，每行几个词元。第一阶段中，查询只读取自己所在网格行的键：即沿对角线排列的方块。</translation>
    </message>
    <message>
        <source>The softmax within each grid row: every row of weights sums to 1 over the few keys of that grid row.</source>
        <translation>每个网格行内的 softmax：每行权重在该网格行的几个键上之和为 1。</translation>
    </message>
    <message>
        <source>Each token's output of the row stage: a mix of the values of its grid row. These outputs, not the original values, are what the column stage mixes next.</source>
        <translation>行阶段中每个词元的输出：它所在网格行的值的混合。接下来列阶段混合的是这些输出，而不是原来的值。</translation>
    </message>
    <message>
        <source>In the second stage a query reads the keys of its own grid column: tokens that lie a whole row width apart in the text.</source>
        <translation>第二阶段中，查询读取自己所在网格列的键：即在文本中相隔整整一行宽度的词元。</translation>
    </message>
    <message>
        <source>The softmax within each grid column. Since each column entry already holds a summary of its row, two hops reach every key whose row has a token in the query's column: every token, when the grid is full.</source>
        <translation>每个网格列内的 softmax。由于列中的每一项已经汇总了它所在的行，两跳之内就能到达所在行与查询所在列有交点的每个键；网格填满时，就是每个词元。</translation>
    </message>
    <message>
        <source>The column stage's output is the result: each token has read its column, and through it the rows of that column's tokens, at the cost of two small attentions instead of one large one.</source>
        <translation>列阶段的输出就是结果：每个词元读取了自己所在的列，并通过它读到该列各词元所在的行，代价是两次小的注意力，而不是一次大的。</translation>
    </message>
    <message>
        <source>The product of the two stages' weights: how much each key reaches each query in the end. It is a full (S, S) matrix although neither stage computed one, and it can be compared with full attention's weights directly.</source>
        <translation>两个阶段权重的乘积：最终每个键对每个查询的影响有多大。虽然两个阶段都没有计算过完整矩阵，它却是一个完整的 (S, S) 矩阵，可以直接与完整注意力的权重比较。</translation>
    </message>
    <message>
        <source>A fixed matrix E with k rows and one column per position (seeded here, learned in the paper). Multiplying by it mixes the S keys into k new rows, and the same for the values.</source>
        <translation>一个固定矩阵 E：k 行，每个位置一列（这里用随机种子生成，论文中是学出来的）。乘以它会把 S 个键混合成 k 个新行，值也一样。</translation>
    </message>
    <message>
        <source>The keys squeezed to k rows: each row is a weighted blend of every position's key. The queries will score against these k blends instead of the S real keys.</source>
        <translation>压缩成 k 行的键：每一行都是所有位置的键的加权混合。查询将与这 k 个混合体计算分数，而不是与 S 个真实的键。</translation>
    </message>
    <message>
        <source>The values squeezed the same way, with the same E, so that each blended key has a blended value to hand over.</source>
        <translation>值也用同一个 E 以同样方式压缩，这样每个混合键都有一个混合值可以交出。</translation>
    </message>
    <message>
        <source>Each query's softmax over the k blended keys: an (S, k) matrix instead of (S, S). For long texts and small k this is where the time and memory are saved.</source>
        <translation>每个查询在 k 个混合键上做 softmax：得到 (S, k) 矩阵而不是 (S, S)。对长文本和较小的 k，时间和内存正是在这里节省下来的。</translation>
    </message>
    <message>
        <source>Each query's output: its weights over the k blends times the blended values. No (S, S) matrix was ever formed.</source>
        <translation>每个查询的输出：它在 k 个混合体上的权重乘以混合后的值。自始至终没有形成 (S, S) 矩阵。</translation>
    </message>
    <message>
        <source>What the Linformer amounts to on the real tokens: its weights times E, an (S, S) matrix. Its rows need not sum to 1 and may be negative, and every query reads the future too, which is why it cannot keep a causal mask.</source>
        <translation>Linformer 在真实词元上相当于什么：它的权重乘以 E，得到一个 (S, S) 矩阵。其各行之和不一定为 1，还可能为负；而且每个查询也会读到未来的词元，所以它无法保留因果掩码。</translation>
    </message>
    <message>
        <source>Linear attention replaces e^(q·k) by φ(q)·φ(k) with φ(x) = elu(x) + 1, which is always positive. This step applies φ to the queries.</source>
        <translation>线性注意力把 e^(q·k) 换成 φ(q)·φ(k)，其中 φ(x) = elu(x) + 1 总是正数。这一步把 φ 作用于查询。</translation>
    </message>
    <message>
        <source>φ applied to the keys; masked keys get rows of 0 so they add nothing to the sums that follow.</source>
        <translation>把 φ 作用于键；被掩码的键所在行置为 0，因此对后面的求和没有任何贡献。</translation>
    </message>
    <message>
        <source>The trick of linear attention: since φ(q)·φ(k) splits into a product, all keys and values can be folded once into a (Dh, Dh) summary. Its size does not depend on the text's length.</source>
        <translation>线性注意力的诀窍：由于 φ(q)·φ(k) 可以拆成乘积，所有键和值可以一次性折叠成一个 (Dh, Dh) 的汇总。它的大小与文本长度无关。</translation>
    </message>
    <message>
        <source>The sum of all φ(k): dividing by φ(q)·z makes each query's weights sum to 1, the job the softmax's denominator did.</source>
        <translation>所有 φ(k) 之和：除以 φ(q)·z 使每个查询的权重之和为 1，这原本是 softmax 分母的作用。</translation>
    </message>
    <message>
        <source>Each query reads the summary instead of every key: cost grows with S·Dh², not S²·Dh. With a causal mask the summary is kept as a running sum over the keys so far.</source>
        <translation>每个查询读取汇总，而不是逐个读取键：代价随 S·Dh² 增长，而不是 S²·Dh。有因果掩码时，汇总以到目前为止的键的累积和来保存。</translation>
    </message>
    <message>
        <source>The same weights written out the slow way, as an (S, S) matrix, only to show them: compare with the softmax weights of full attention to see what the feature map changes.</source>
        <translation>用慢的方法把同样的权重写成 (S, S) 矩阵，只是为了展示：与完整注意力的 softmax 权重比较，就能看出特征映射改变了什么。</translation>
    </message>
    <message>
        <source>The slow form's output. It must equal the fast O(S) result up to rounding; the Variant panel checks this.</source>
        <translation>慢方法的输出。它必须与快速的 O(S) 结果在舍入误差内相同；变体面板会检查这一点。</translation>
    </message>
    <message>
        <source>When a model generates text, token t arrives alone. Only its key is computed and appended to the cache; the keys of the earlier tokens are reused, not recomputed.</source>
        <translation>模型生成文本时，词元 t 是单独到来的。只计算它的键并追加到缓存中；前面词元的键直接复用，不再重新计算。</translation>
    </message>
    <message>
        <source>The same for the value: the cache grows by one row per token, which is the memory a KV cache costs.</source>
        <translation>值也一样：每来一个词元，缓存增加一行，这就是 KV 缓存占用的内存。</translation>
    </message>
    <message>
        <source>The new token's query scores the keys in the cache, which holds only the past: the causal mask comes for free. One row of weights, not a whole matrix.</source>
        <translation>新词元的查询与缓存中的键计算分数，而缓存里只有过去的词元：因果掩码是自然得到的。只有一行权重，而不是整个矩阵。</translation>
    </message>
    <message>
        <source>The new token's output: its weights times the cached values. One row per generated token.</source>
        <translation>新词元的输出：它的权重乘以缓存中的值。每生成一个词元得到一行。</translation>
    </message>
    <message>
        <source>All the per-token outputs stacked. They equal full causal attention exactly: the cache changes how much work is done, not the result.</source>
        <translation>把每个词元的输出叠在一起。它们与完整的因果注意力完全相同：缓存改变的是工作量，而不是结果。</translation>
    </message>
    <message>
        <source>Full causal attention computed all at once, for comparison: what the step-by-step decoding must reproduce.</source>
        <translation>一次性算出的完整因果注意力，用于比较：逐步解码必须重现的结果。</translation>
    </message>
    <message>
        <source>The scores of every query against one block of keys only. The tiled method never holds more than one block of scores, which is how FlashAttention fits long texts into fast memory.</source>
        <translation>每个查询只与一个键块计算的分数。分块方法任何时候最多只保存一块分数，FlashAttention 正是这样把长文本装进高速内存的。</translation>
    </message>
    <message>
        <source>The largest score seen so far in each query row. Softmax needs it to keep e^x from overflowing, and here it is updated block by block.</source>
        <translation>每个查询行到目前为止见到的最大分数。softmax 需要它来防止 e^x 溢出，这里它逐块更新。</translation>
    </message>
    <message>
        <source>When a new block raises the maximum, everything summed so far was measured against the old one: multiplying by e^(m_old − m_new) corrects it. This is the online softmax.</source>
        <translation>当新的块抬高了最大值时，之前累加的一切都是相对旧最大值计算的：乘以 e^(m_old − m_new) 就能修正。这就是在线 softmax。</translation>
    </message>
    <message>
        <source>The running softmax denominator: the old sum rescaled plus this block's exponentials.</source>
        <translation>累积的 softmax 分母：重缩放后的旧和，加上本块的指数项。</translation>
    </message>
    <message>
        <source>The running output, not yet divided: the old output rescaled plus this block's exponentials times its values.</source>
        <translation>累积的输出，尚未相除：重缩放后的旧输出，加上本块的指数项乘以本块的值。</translation>
    </message>
    <message>
        <source>After the last block, dividing by the running sum gives exactly softmax(QKᵀ/√Dh)·V, the same as full attention, without ever holding the (S, S) matrix.</source>
        <translation>处理完最后一块后，除以累积和就恰好得到 softmax(QKᵀ/√Dh)·V，与完整注意力相同，而从未保存过 (S, S) 矩阵。</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>Split heads: view %1 straight to (B, H, %2, Dh)</source>
        <translation>拆分多头：将 %1 直接 view 为 (B, H, %2, Dh)</translation>
    </message>
    <message>
        <source>(B, %1, D) → (B, H, %1, Dh) in one view, no transpose: head h takes the h-th run of %1·Dh numbers, so its rows mix positions and features</source>
        <translation>(B, %1, D) → (B, H, %1, Dh) 一次 view 完成，没有 transpose：头 h 取的是第 h 段连续的 %1·Dh 个数，因此它的各行混杂了不同的位置和特征</translation>
    </message>
    <message>
        <source>scores = QKᵀ — the division by √Dh is missing (√Dh = %1)</source>
        <translation>scores = QKᵀ —— 缺少除以 √Dh 这一步（√Dh = %1）</translation>
    </message>
    <message>
        <source>A = softmax(scores), then 0 where mask = 0: rows with masked keys sum to less than 1</source>
        <translation>A = softmax(scores)，再在掩码为 0 处置 0：含被掩码键的行之和小于 1</translation>
    </message>
    <message>
        <source>A·V with an online softmax over blocks of keys: a running maximum m and sum l per query, O ← O·e^(m_old − m) + e^(scores − m)·V, then O / l</source>
        <translation>在键的各个分块上用在线 softmax 计算 A·V：每个查询维护一个累计最大值 m 和累计和 l，O ← O·e^(m_old − m) + e^(scores − m)·V，最后计算 O / l</translation>
    </message>
    <message>
        <source>no (%1, %2) matrix kept</source>
        <translation>不保留 (%1, %2) 矩阵</translation>
    </message>
    <message>
        <source>(B, H, %1, Dh) → (B, %1, D) in one view: a row of the context strings together pieces of one head at several query positions</source>
        <translation>(B, H, %1, Dh) → (B, %1, D) 一次 view 完成：上下文的一行拼接的是同一个头在多个查询位置上的片段</translation>
    </message>
    <message>
        <source>A·V over the computed pairs only (B, H, S, Dh)</source>
        <translation>A·V，只用计算过的对 (B, H, S, Dh)</translation>
    </message>
    <message>
        <source>%1 (B, H, %2, Dh): S rows mixed into %3</source>
        <translation>%1 (B, H, %2, Dh)：S 行混合成 %3 行</translation>
    </message>
    <message>
        <source>A = softmax(Q K̃ᵀ / √Dh) (B, H, S, %1): no (S, S) matrix</source>
        <translation>A = softmax(Q K̃ᵀ / √Dh) (B, H, S, %1)：没有 (S, S) 矩阵</translation>
    </message>
    <message>
        <source>KV = φ(K)ᵀ·V (B, H, Dh, Dh): every key folded into one small matrix</source>
        <translation>KV = φ(K)ᵀ·V (B, H, Dh, Dh)：所有键折叠进一个小矩阵</translation>
    </message>
    <message>
        <source>%1: O(S·Dh²), no (S, S) matrix</source>
        <translation>%1：O(S·Dh²)，没有 (S, S) 矩阵</translation>
    </message>
    <message>
        <source>A = φ(Q)φ(K)ᵀ, each row divided by its sum (B, H, S, S)</source>
        <translation>A = φ(Q)φ(K)ᵀ，每行除以其和 (B, H, S, S)</translation>
    </message>
    <message>
        <source>A = φ(Q)φ(K)ᵀ (lower triangle), each row divided by its sum (B, H, S, S)</source>
        <translation>A = φ(Q)φ(K)ᵀ（下三角），每行除以其和 (B, H, S, S)</translation>
    </message>
    <message>
        <source>A·V: equal to the O(S) result</source>
        <translation>A·V：与 O(S) 的结果相同</translation>
    </message>
    <message>
        <source>(B, H, S, Dh): the outputs of steps 0…S−1 stacked</source>
        <translation>(B, H, S, Dh)：把第 0…S−1 步的输出叠在一起</translation>
    </message>
    <message>
        <source>scores_j = Q·K[%1:%2]ᵀ / √Dh, −∞ where masked (B, H, S, %3)</source>
        <translation>scores_j = Q·K[%1:%2]ᵀ / √Dh，被掩码处为 −∞ (B, H, S, %3)</translation>
    </message>
    <message>
        <source>O ← O·r + e^(scores_j − m)·V_j (unnormalised)</source>
        <translation>O ← O·r + e^(scores_j − m)·V_j（未归一化）</translation>
    </message>
    <message>
        <source>O / l: equal to softmax(QKᵀ/√Dh)·V, never holding (S, S)</source>
        <translation>O / l：等于 softmax(QKᵀ/√Dh)·V，从不保存 (S, S)</translation>
    </message>
    <message>
        <source>Gradient of the parameter %1</source>
        <translation>参数 %1 的梯度</translation>
    </message>
    <message>
        <source>L = the sum of every element, [PAD] positions included: each element's gradient is 1</source>
        <translation>L = 所有元素之和（包括 [PAD] 位置）：每个元素的梯度都是 1</translation>
    </message>
    <message>
        <source>The gradient of this step's tensor: for each number, how much the loss would change if it grew a little. The backward pass computes it from the steps that used the tensor, last step first (the chain rule); where the tensor was used twice, as the residual stream is, the shares add up.</source>
        <translation>这一步张量的梯度：对每个数来说，它稍微变大时损失会变化多少。反向传播从使用了这个张量的各个步骤算出它，从最后一步开始（链式法则）；张量被用了两次的地方（比如残差流），两份梯度相加。</translation>
    </message>
    <message>
        <source>∂L/∂weights = dO·Vᵀ: a query's gradient on a key is large where leaning more on that key would move the loss, that is where the key's value differs from what the query gathered. Red and blue are the two signs; masked cells are hatched: nothing flows there.</source>
        <translation>∂L/∂weights = dO·Vᵀ：如果某个查询更多地关注某个键会改变损失，那么它在这个键上的梯度就大，也就是这个键的值与查询收集到的内容不同的地方。红色和蓝色是两种符号；被掩码的格子画有斜线：那里没有梯度流过。</translation>
    </message>
    <message>
        <source>Through the softmax: dS = P ⊙ (dP − Σ dP ⊙ P). A masked key has P = 0, so its gradient is exactly 0: the mask stops the gradient as it stopped the attention. A saturated row (one weight near 1) passes almost nothing back, which is why the scores are divided by √d_head.</source>
        <translation>穿过 softmax：dS = P ⊙ (dP − Σ dP ⊙ P)。被掩码的键 P = 0，所以它的梯度恰好为 0：掩码挡住了梯度，就像它挡住了注意力一样。饱和的行（某个权重接近 1）几乎不往回传任何梯度，这就是分数要除以 √d_head 的原因。</translation>
    </message>
    <message>
        <source>The scaling divides the gradient too: dqk = dscores / √d_head.</source>
        <translation>缩放也会除以梯度：dqk = dscores / √d_head。</translation>
    </message>
    <message>
        <source>∂L/∂Q = dS·K / √d_head, ∂L/∂K = dSᵀ·Q / √d_head: each query is pulled toward the keys that should have scored higher. The head split's view and transpose are undone on the way back, and the projections send the gradient on to W_Q, W_K, W_V and to the layer's input.</source>
        <translation>∂L/∂Q = dS·K / √d_head，∂L/∂K = dSᵀ·Q / √d_head：每个查询被拉向本应得分更高的键。回传时，拆分多头的 view 和 transpose 被逆向撤销，投影再把梯度传给 W_Q、W_K、W_V 以及这一层的输入。</translation>
    </message>
    <message>
        <source>LayerNorm's backward removes the gradient's mean and its part along the normalised vector. After a final LayerNorm with γ = 1 and β = 0 the sum of the output does not depend on the input at all, so the `sum` loss gives exactly zero gradient before it: a trap worth seeing.</source>
        <translation>LayerNorm 的反向传播会去掉梯度的均值以及它沿归一化向量的分量。在最后一个 γ = 1、β = 0 的 LayerNorm 之后，输出之和完全不依赖于输入，所以 `sum` 损失在它之前给出的梯度恰好为零：这是一个值得一看的陷阱。</translation>
    </message>
    <message>
        <source>A residual connection passes its gradient to both branches unchanged: the shortcut carries the gradient straight back past the sub-layer, which is why deep transformers can train.</source>
        <translation>残差连接把梯度原封不动地传给两个分支：捷径把梯度绕过子层直接传回去，这就是深层 Transformer 能够训练的原因。</translation>
    </message>
    <message>
        <source>A parameter's gradient sums its uses over every token and sentence; an optimiser steps against it. A zero or tiny gradient means the graph is broken or the initialisation is wrong: the Gradients tab shows the norm of every parameter's gradient at once.</source>
        <translation>参数的梯度是它在每个词元、每个句子上各次使用的梯度之和；优化器沿它的反方向更新。梯度为零或极小，说明计算图断了或初始化有问题：“梯度”标签页一次显示每个参数梯度的范数。</translation>
    </message>
    <message>
        <source>Gradient · %1</source>
        <translation>梯度 · %1</translation>
    </message>
    <message>
        <source>detach() returns the same numbers as a new tensor with no history: the forward pass cannot tell the difference, but the backward pass stops here. Nothing before this step gets a gradient through it, so the attention's weights never change while training.</source>
        <translation>detach() 返回数值相同、但没有计算历史的新张量：前向传播看不出任何区别，反向传播却在这里停下。这一步之前的任何东西都得不到经由它传来的梯度，所以训练时注意力的权重永远不会改变。</translation>
    </message>
    <message>
        <source>Attention output detached from the graph</source>
        <translation>注意力输出被从计算图中分离（detach）</translation>
    </message>
    <message>
        <source>Attention output, detached</source>
        <translation>注意力输出（已 detach）</translation>
    </message>
    <message>
        <source>detached = out, the same numbers with no path back: no gradient reaches out or anything before it</source>
        <translation>detached = out，数值相同但没有回传路径：梯度到不了 out，也到不了它之前的任何步骤</translation>
    </message>
    <message>
        <source>The tiled path's backward (FlashAttention-2's) never holds a whole score gradient either: it recomputes the weights tile by tile from Q, K and each row's log-sum-exp, and passes dS = P ⊙ (dP − rowsum(dO ⊙ O)) straight on to Q and K. This overview bins dS like the weights' overview; a bin of masked keys sums to exactly 0.</source>
        <translation>分块路径的反向传播（FlashAttention-2 的做法）同样从不保存完整的分数梯度：它用 Q、K 和每行的 log-sum-exp 逐块重新算出权重，再把 dS = P ⊙ (dP − rowsum(dO ⊙ O)) 直接传给 Q 和 K。这张概览图像权重概览那样把 dS 分箱；全是被掩码的键的箱子之和恰好为 0。</translation>
    </message>
    <message>
        <source>The gradient of each head's output splits in two: dweights = dO·Vᵀ and dv = Pᵀ·dO. On the tiled path it goes straight on to Q, K and V (FlashAttention-2's backward): no (S, S) gradient is kept, only the binned overview of ∂L/∂scores.</source>
        <translation>每个头输出的梯度分成两路：dweights = dO·Vᵀ 和 dv = Pᵀ·dO。在分块路径上它直接传给 Q、K 和 V（FlashAttention-2 的反向传播）：不保留任何 (S, S) 梯度，只保留 ∂L/∂scores 的分箱概览。</translation>
    </message>
    <message>
        <source>Gradient of the scores · overview (tiled)</source>
        <translation>分数的梯度 · 概览（分块）</translation>
    </message>
    <message>
        <source>each cell: the mean over %1 queries of the sum over %2 keys of ∂L/∂scores, dS = P ⊙ (dP − rowsum(dO ⊙ O)), recomputed tile by tile and never kept whole</source>
        <translation>每个格子：对 %1 个查询取平均、对 %2 个键求和的 ∂L/∂scores，dS = P ⊙ (dP − rowsum(dO ⊙ O))，逐块重新计算，从不完整保存</translation>
    </message>
    <message>
        <source>Attention itself is blind to order, so position must be written into the numbers. Each position p gets a fixed pattern of sines and cosines at different frequencies; nearby positions get similar patterns, and the model can read relative offsets from them. With learned positions (GPT-2, BERT) each position instead has its own row of a trained table, looked up like a token's embedding, and no text may be longer than the table.</source>
        <translation>注意力本身对顺序是“盲”的，因此必须把位置信息写进数值里。每个位置 p 都会得到一组由不同频率的正弦和余弦构成的固定模式；相邻位置的模式相似，模型可以从中读出相对偏移。若使用学习得到的位置（GPT-2、BERT），每个位置则在一张训练出来的表中拥有自己的一行，像词元的嵌入一样查表得到，而且文本不能比这张表更长。</translation>
    </message>
    <message>
        <source>Learned position embeddings</source>
        <translation>学习得到的位置嵌入</translation>
    </message>
    <message>
        <source>one learned vector per position, the first rows of a table of %1</source>
        <translation>每个位置一个学习得到的向量，取自 %1 行位置表的前几行</translation>
    </message>
    <message>
        <source>Final LayerNorm</source>
        <translation>最终 LayerNorm</translation>
    </message>
    <message>
        <source>once more after the last layer, so that what leaves the stack is normalised</source>
        <translation>在最后一层之后再做一次，使离开整个堆叠的输出经过归一化</translation>
    </message>
    <message>
        <source>the id the checkpoint's tokenizer gives each piece; [PAD] reads row %1</source>
        <translation>检查点的分词器给每个词片的编号；[PAD] 读取第 %1 行</translation>
    </message>
    <message>
        <source>logits = x Eᵀ: the embedding table again (tied), no bias; one score per vocabulary piece (B, S, V)</source>
        <translation>logits = x Eᵀ：再次使用嵌入表（权重共享），没有偏置；词表中每个词片一个分数 (B, S, V)</translation>
    </message>
    <message>
        <source>Token-type embeddings</source>
        <translation>词元类型嵌入</translation>
    </message>
    <message>
        <source>every piece is in the first segment: row 0 of a table of %1 (BERT's sentence A and sentence B)</source>
        <translation>每个片段都属于第一段：取 %1 行表中的第 0 行（BERT 的句子 A 与句子 B）</translation>
    </message>
    <message>
        <source>Embeddings summed</source>
        <translation>嵌入相加</translation>
    </message>
    <message>
        <source>Embedding LayerNorm</source>
        <translation>嵌入 LayerNorm</translation>
    </message>
    <message>
        <source>over the summed embeddings, before the first layer (BERT's embeddings.LayerNorm)</source>
        <translation>作用于相加后的嵌入，在第一层之前（BERT 的 embeddings.LayerNorm）</translation>
    </message>
    <message>
        <source>Head transform: dense</source>
        <translation>输出头变换：全连接</translation>
    </message>
    <message>
        <source>h = x·Wᵀ + b (B, S, D): BERT's masked-word head first transforms each position's output</source>
        <translation>h = x·Wᵀ + b (B, S, D)：BERT 的掩码词输出头先变换每个位置的输出</translation>
    </message>
    <message>
        <source>Head transform: %1</source>
        <translation>输出头变换：%1</translation>
    </message>
    <message>
        <source>Head transform: LayerNorm</source>
        <translation>输出头变换：LayerNorm</translation>
    </message>
    <message>
        <source>the transform's LayerNorm, before the tied decoder</source>
        <translation>变换的 LayerNorm，位于共享权重的解码矩阵之前</translation>
    </message>
    <message>
        <source>logits = h Eᵀ + b: the embedding table again (tied), with the head's own bias; one score per vocabulary piece (B, S, V)</source>
        <translation>logits = h Eᵀ + b：再次使用嵌入表（权重共享），加上输出头自己的偏置；词表中每个片段一个分数 (B, S, V)</translation>
    </message>
    <message>
        <source>softmax over the vocabulary: position i's guess at its own piece; at a [MASK], the hidden word</source>
        <translation>对词表做 softmax：位置 i 对自身片段的猜测；在 [MASK] 处即被遮住的词</translation>
    </message>
    <message>
        <source>The token vectors plus the position code: this sum is what the first layer reads (BERT normalises it first: then this step is that LayerNorm). From here on, every layer keeps the shape (B, S, D) and only changes the numbers.</source>
        <translation>词向量加上位置编码：第一层读取的就是这个和（BERT 会先把它归一化：那时这一步就是那个 LayerNorm）。从这里开始，每一层都保持形状 (B, S, D) 不变，只改变其中的数值。</translation>
    </message>
    <message>
        <source>BERT adds three vectors per piece: its token's, its position's and its segment's. The sum's scale varies from piece to piece, so BERT normalises it with a LayerNorm (the next step) before the first layer reads it.</source>
        <translation>BERT 为每个词片加上三个向量：词的、位置的和句段的。这个和的尺度因词片而异，所以在第一层读取之前，BERT 先用一个 LayerNorm（下一步）把它归一化。</translation>
    </message>
    <message>
        <source>BERT was trained on pairs of sentences, and each piece says which of the two it belongs to by adding a learned segment vector. One text is all sentence A, so every position adds the same row 0.</source>
        <translation>BERT 是在句子对上训练的，每个词片通过加上一个学习得到的句段向量来表明自己属于两句中的哪一句。单独一段文本全部属于句子 A，所以每个位置加的都是同一行 0。</translation>
    </message>
    <message>
        <source>BERT's masked-word head does not read the last layer directly: a dense layer (D → D), a GELU and a LayerNorm first turn each position's vector into one shaped like a word embedding, which the tied table then scores against every vocabulary piece.</source>
        <translation>BERT 的掩码词输出头并不直接读取最后一层：先由一个全连接层 (D → D)、一个 GELU 和一个 LayerNorm 把每个位置的向量变成形如词嵌入的向量，再由共享的嵌入表把它与词表中的每个词片逐一打分。</translation>
    </message>
    <message>
        <source>The head transform's activation, the same GELU the feed-forward layers use.</source>
        <translation>输出头变换的激活函数，与前馈层使用的 GELU 相同。</translation>
    </message>
    <message>
        <source>The head transform's LayerNorm: each position's vector normalised, then scaled and shifted, before its dot product with every row of the embedding table.</source>
        <translation>输出头变换的 LayerNorm：每个位置的向量先归一化，再缩放和平移，然后才与嵌入表的每一行做点积。</translation>
    </message>
    <message>
        <source>Attention rollout</source>
        <translation>注意力展开（rollout）</translation>
    </message>
    <message>
        <source>Attention flow</source>
        <translation>注意力流（flow）</translation>
    </message>
    <message>
        <source>Gradient-weighted attention</source>
        <translation>梯度加权注意力</translation>
    </message>
    <message>
        <source>Gradient × input saliency</source>
        <translation>梯度 × 输入显著性</translation>
    </message>
    <message>
        <source>Token ablation: what masking each key changes</source>
        <translation>词元消融：遮住每个键会改变什么</translation>
    </message>
    <message>
        <source>key j masked for every query but its own, the model run again: |Δ log p| of the token it predicted at the explained position (one pass per key)</source>
        <translation>除键 j 自身外，对所有查询遮住键 j，再运行一次模型：被解释位置上原先预测的词元的 |Δ log p|（每个键运行一次）</translation>
    </message>
    <message>
        <source>key j masked for every query but its own, the model run again: how far the explained position's output moves, ‖Δh‖ (one pass per key)</source>
        <translation>除键 j 自身外，对所有查询遮住键 j，再运行一次模型：被解释位置的输出移动了多远，即 ‖Δh‖（每个键运行一次）</translation>
    </message>
    <message>
        <source>each layer's head average with the residual's identity added, rows renormalised; R[i, j] is how much of input token j reaches position i after the last layer, [PAD] included (Abnar &amp; Zuidema 2020)</source>
        <translation>每层各头的平均加上残差对应的单位矩阵，各行重新归一化；R[i, j] 表示输入词元 j 在最后一层之后有多少到达位置 i，包括 [PAD]（Abnar 与 Zuidema，2020）</translation>
    </message>
    <message>
        <source>the maximum flow from input token j to position i through the graph of layers × tokens whose edges carry Â_l as capacities, each row divided by its sum (Abnar &amp; Zuidema 2020)</source>
        <translation>在“层 × 词元”图中以 Â_l 为边容量，从输入词元 j 到位置 i 的最大流，每行再除以其总和（Abnar 与 Zuidema，2020）</translation>
    </message>
    <message>
        <source>∇A_l = ∂L/∂A_l for the loss %1; (·)⁺ keeps the positive part; layers taken first to last (Chefer et al. 2021)</source>
        <translation>∇A_l = 损失 %1 的 ∂L/∂A_l；(·)⁺ 只保留正的部分；各层从第一层到最后一层依次处理（Chefer 等，2021）</translation>
    </message>
    <message>
        <source>x is the first layer's input, ∂L/∂x for the loss %1, summed over the model width D</source>
        <translation>x 是第一层的输入，∂L/∂x 取自损失 %1，在模型宽度 D 上求和</translation>
    </message>
    <message>
        <source>Logit lens: what each layer would predict</source>
        <translation>Logit 透镜：每一层会预测什么</translation>
    </message>
    <message>
        <source>Logit lens: the tokens of those guesses</source>
        <translation>Logit 透镜：这些猜测对应的词元</translation>
    </message>
    <message>
        <source>h_l is the residual stream after layer l (l = 0: the embeddings, before any layer), sent through what follows the last layer — the final LayerNorm where the model has one, the output head — and a softmax over the vocabulary: the probabilities of the %1 most likely tokens per layer and position, most likely first; at l = L they are the model's own prediction (nostalgebraist 2020)</source>
        <translation>h_l 是第 l 层之后的残差流（l = 0：嵌入，尚未经过任何层），送入最后一层之后的部分——模型有最终 LayerNorm 时先经过它，再经过输出头——并在词表上做 softmax：每层每个位置概率最高的 %1 个词元的概率，从高到低；l = L 时就是模型自己的预测（nostalgebraist 2020）</translation>
    </message>
    <message>
        <source>the vocabulary ids of those tokens, in the same order (the manifest's logit_lens spells them)</source>
        <translation>这些词元在词表中的编号，顺序相同（manifest 的 logit_lens 写出了它们的文字）</translation>
    </message>
    <message>
        <source>Logit lens: the final answer's probability at each layer</source>
        <translation>Logit 透镜：每一层给最终答案的概率</translation>
    </message>
    <message>
        <source>the probability each layer gives the token the model finally predicts at that position (the last layer's most likely token): the answer forming layer by layer</source>
        <translation>每一层给该位置上模型最终预测的词元（最后一层概率最高的词元）的概率：答案逐层成形</translation>
    </message>
    <message>
        <source>x is the encoder's input (the source tokens), ∂L/∂x for the loss %1 computed at the decoder's output, summed over the model width D</source>
        <translation>x 是编码器的输入（源词元），∂L/∂x 针对损失 %1、在解码器的输出处计算，对模型宽度 D 求和</translation>
    </message>
    <message>
        <source>encoder–decoder: R_ss rolls out the encoder's self-attention and R_tt the decoder's, each layer's Â_l = ½·mean_h(A_l) + ½·I with rows renormalised; the last decoder layer's cross-attention averaged over heads joins them, R = R_ttᵀ · mean_h(A_cross) · R_ss, its rows of the decoder's [PAD] positions left out (zero); through R_ttᵀ, row t gathers the source weights of every position that carries t, so under a causal mask those of t and the positions after it (Chefer et al. 2021's rollout for encoder–decoders)</source>
        <translation>编码器–解码器：R_ss 是编码器自注意力的 rollout，R_tt 是解码器自注意力的 rollout，每层 Â_l = ½·mean_h(A_l) + ½·I，各行重新归一化；最后一个解码器层的交叉注意力（各头平均）把两者连起来，R = R_ttᵀ · mean_h(A_cross) · R_ss，其中解码器 [PAD] 位置的行不计入（为零）；经过 R_ttᵀ，第 t 行汇集了所有携带 t 的位置对源句的权重，因此在因果掩码下是 t 及其后各位置的权重（Chefer 等 2021 为编码器–解码器给出的 rollout）</translation>
    </message>
    <message>
        <source>∇A = ∂L/∂A for the loss %1, Ā = mean_h((∇A ⊙ A)⁺); the encoder's layers update R_ss, each decoder layer's self-attention R_tt and R_ts, its cross-attention adds R̄_ttᵀ · Ā · R̄_ss to R_ts (Ā's rows of the decoder's [PAD] positions left out), R̄ = (R − I) with rows summed to 1, + I (a row of R − I summing to 0 stays 0); R[t, j] is source token j's relevance at decoder position t for the whole loss, not for position t's prediction alone (Chefer et al. 2021, eq. 6–10)</source>
        <translation>∇A = ∂L/∂A（损失 %1），Ā = mean_h((∇A ⊙ A)⁺)；编码器各层更新 R_ss，每个解码器层的自注意力更新 R_tt 和 R_ts，其交叉注意力把 R̄_ttᵀ · Ā · R̄_ss 加到 R_ts 上（Ā 中解码器 [PAD] 位置的行不计入），R̄ = (R − I) 各行缩放到和为 1，再 + I（R − I 中和为 0 的行保持为 0）；R[t, j] 是源词元 j 在解码器位置 t 上对整个损失的相关度，而不只是对位置 t 的预测（Chefer 等 2021，式 6–10）</translation>
    </message>
    <message>
        <source>source token j masked for every decoder position in each cross-attention and, in the encoder, for every query but its own; the whole model run again and the change read at the decoder's explained position (one pass per source token)</source>
        <translation>源词元 j 在每一层交叉注意力中对解码器的每个位置都被遮蔽，在编码器中对除它自己以外的每个查询也被遮蔽；整个模型重新运行一次，在解码器被解释的位置读取变化（每个源词元运行一次）</translation>
    </message>
    <message>
        <source>One head of a tiled layer, kept whole because you asked for it: the same softmax of its scaled, masked scores as in a layer traced in full, every query against every key, while the layer's other heads stay an overview. One (S, S) matrix costs far less memory than the layer's four score steps for every head.</source>
        <translation>分块计算的层中的一个头，按你的要求完整保留：与完整记录的层相同，是它缩放并加掩码后的分数的 softmax，每个查询对每个键；这一层的其他头仍然只是概览。一个 (S, S) 矩阵所占的内存远少于整层所有头的四个分数步骤。</translation>
    </message>
    <message>
        <source>Head %1's weights, cell by cell</source>
        <translation>头 %1 的权重（逐格）</translation>
    </message>
    <message>
        <source>only this head's (%1, %2) matrix is kept; the layer's other heads stay tiled</source>
        <translation>只保留这个头的 (%1, %2) 矩阵；这一层的其他头仍然分块计算</translation>
    </message>
</context>
<context>
    <name>VariantText</name>
    <message>
        <source>Full attention (none)</source>
        <translation>完整注意力（无变体）</translation>
    </message>
    <message>
        <source>Sliding window + global</source>
        <translation>滑动窗口 + 全局</translation>
    </message>
    <message>
        <source>BigBird blocks</source>
        <translation>BigBird 分块</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Linformer (low rank)</source>
        <translation>Linformer（低秩）</translation>
    </message>
    <message>
        <source>Linear (elu+1)</source>
        <translation>线性（elu+1）</translation>
    </message>
    <message>
        <source>Relative position bias</source>
        <translation>相对位置偏置</translation>
    </message>
    <message>
        <source>ALiBi</source>
        <translation>ALiBi</translation>
    </message>
    <message>
        <source>Axial (grid)</source>
        <translation>轴向（网格）</translation>
    </message>
    <message>
        <source>KV cache walk-through</source>
        <translation>KV 缓存逐步演示</translation>
    </message>
    <message>
        <source>Tiled (online softmax) walk-through</source>
        <translation>分块（在线 softmax）逐步演示</translation>
    </message>
    <message>
        <source>Each query reads only the keys a few positions around it, plus a few global tokens that read and are read by everyone (as in Longformer): the cost grows with T, not T².</source>
        <translation>每个查询只读取它前后几个位置的键，再加上几个与所有词元互相读取的全局词元（如 Longformer）：代价随 T 增长，而不是 T²。</translation>
    </message>
    <message>
        <source>The text is cut into blocks; a block reads its neighbouring blocks, the global blocks and a few random ones, so a signal can still cross the whole text in a few layers.</source>
        <translation>文本被切成块；每块读取相邻的块、全局块和几个随机块，因此信号仍能在几层之内传遍全文。</translation>
    </message>
    <message>
        <source>Each query keeps only its k best-scoring keys and drops the rest before the softmax: the largest weights survive, the long tail is cut off.</source>
        <translation>每个查询只保留分数最高的 k 个键，其余的在 softmax 之前丢弃：最大的权重留下，长尾被截掉。</translation>
    </message>
    <message>
        <source>The softmax is replaced by φ(q)·φ(k) with φ = elu + 1, so all keys can be folded once into a small (Dh, Dh) summary: cost linear in T, but different weights.</source>
        <translation>用 φ(q)·φ(k)（φ = elu + 1）代替 softmax，于是所有键可以一次性折叠成一个小的 (Dh, Dh) 汇总：代价与 T 成线性关系，但权重不同。</translation>
    </message>
    <message>
        <source>A number per head and distance j − i is added to every score, so a head can prefer near (or far) tokens wherever they stand.</source>
        <translation>每个头、每个距离 j − i 对应一个数，加到每个分数上，于是一个头无论在哪个位置都可以偏爱近处（或远处）的词元。</translation>
    </message>
    <message>
        <source>Every score loses slope × distance, a fixed penalty per head (ALiBi): far tokens count less, without any learned position code.</source>
        <translation>每个分数减去 斜率 × 距离，每个头的惩罚固定（ALiBi）：远处的词元分量更轻，无需任何学习得到的位置编码。</translation>
    </message>
    <message>
        <source>The tokens are laid out on a grid; attention runs within each row, then within each column, and two hops reach every token (when the grid is full).</source>
        <translation>词元排成一个网格；注意力先在每行内进行，再在每列内进行，两跳之内即可到达每个词元（网格填满时）。</translation>
    </message>
    <message>
        <source>Generation one token at a time: each new token's key and value are appended to a cache and only its query attends; the result equals full causal attention.</source>
        <translation>逐个词元生成：每个新词元的键和值追加到缓存中，只有它的查询去做注意力；结果与完整因果注意力相同。</translation>
    </message>
    <message>
        <source>window (± tokens):</source>
        <translation>窗口（± 词元）：</translation>
    </message>
    <message>
        <source>global blocks:</source>
        <translation>全局块：</translation>
    </message>
    <message>
        <source>global tokens:</source>
        <translation>全局词元：</translation>
    </message>
    <message>
        <source>block size (tokens):</source>
        <translation>块大小（词元）：</translation>
    </message>
    <message>
        <source>random blocks:</source>
        <translation>随机块：</translation>
    </message>
    <message>
        <source>keys kept (k):</source>
        <translation>保留的键数 (k)：</translation>
    </message>
    <message>
        <source>rank (rows k):</source>
        <translation>秩（行数 k）：</translation>
    </message>
    <message>
        <source>largest distance:</source>
        <translation>最大距离：</translation>
    </message>
    <message>
        <source>grid width (tokens per row):</source>
        <translation>网格宽度（每行词元数）：</translation>
    </message>
    <message>
        <source>tile (keys per block):</source>
        <translation>分块（每块的键数）：</translation>
    </message>
    <message>
        <source>A query reads the keys at most this many positions before or after it.</source>
        <translation>查询读取其前后最多这么多个位置的键。</translation>
    </message>
    <message>
        <source>The first blocks read, and are read by, every block.</source>
        <translation>前几块读取所有块，也被所有块读取。</translation>
    </message>
    <message>
        <source>The first tokens read, and are read by, every token.</source>
        <translation>前几个词元读取所有词元，也被所有词元读取。</translation>
    </message>
    <message>
        <source>Tokens per block.</source>
        <translation>每块的词元数。</translation>
    </message>
    <message>
        <source>Extra key blocks drawn at random (seeded) for each query block and head.</source>
        <translation>为每个查询块和每个头额外随机抽取（按种子）的键块。</translation>
    </message>
    <message>
        <source>Keys kept per query: those scoring at least its k-th largest score.</source>
        <translation>每个查询保留的键：分数不低于其第 k 大分数的那些。</translation>
    </message>
    <message>
        <source>The rows the keys and values are projected to.</source>
        <translation>键和值被投影到的行数。</translation>
    </message>
    <message>
        <source>Distances beyond this share the last number of the table.</source>
        <translation>超过这个距离的都共用表中的最后一个数。</translation>
    </message>
    <message>
        <source>The text is laid out row by row, this many tokens per row.</source>
        <translation>文本逐行排列，每行这么多个词元。</translation>
    </message>
    <message>
        <source>Keys per block of the online softmax.</source>
        <translation>在线 softmax 每块的键数。</translation>
    </message>
    <message>
        <source>Every query scores every key: the (S, S) attention the model itself computes.</source>
        <translation>每个查询都与每个键计算分数：即模型自身计算的 (S, S) 注意力。</translation>
    </message>
    <message>
        <source>A fixed projection squeezes the S keys and values into k rows, so the score matrix is (S, k) instead of (S, S); it cannot keep a causal mask.</source>
        <translation>一个固定的投影把 S 个键和值压缩成 k 行，于是分数矩阵是 (S, k) 而不是 (S, S)；它无法保留因果掩码。</translation>
    </message>
    <message>
        <source>Keys are taken block by block with a running maximum and sum (the online softmax of FlashAttention): the result equals full attention without ever holding the (S, S) matrix.</source>
        <translation>逐块处理键，同时维护累积的最大值与和（FlashAttention 的在线 softmax）：结果等于完整注意力，而从不保存 (S, S) 矩阵。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::BusyIndicator</name>
    <message>
        <source>Computation progress</source>
        <translation>计算进度</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop this computation; the previous result stays on screen</source>
        <translation>停止此计算；屏幕上保留之前的结果</translation>
    </message>
    <message>
        <source>step %1 of %2</source>
        <translation>步骤 %1/%2</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::ChartsPanel</name>
    <message>
        <source>uniform (dead)</source>
        <translation>均匀（失效）</translation>
    </message>
    <message>
        <source>diagonal</source>
        <translation>对角线</translation>
    </message>
    <message>
        <source>previous token</source>
        <translation>前一个词元</translation>
    </message>
    <message>
        <source>focused</source>
        <translation>聚焦</translation>
    </message>
    <message>
        <source>mixed</source>
        <translation>混合</translation>
    </message>
    <message>
        <source>Query row:</source>
        <translation>查询行：</translation>
    </message>
    <message>
        <source>The query token whose softmax row is drawn</source>
        <translation>要绘制其 softmax 行的查询词元</translation>
    </message>
    <message>
        <source>Softmax temperature:</source>
        <translation>Softmax 温度：</translation>
    </message>
    <message>
        <source>softmax(scores / T), T from %1 to %2 on a log scale</source>
        <translation>softmax(scores / T)，T 从 %1 到 %2，按对数刻度</translation>
    </message>
    <message>
        <source>T = 1</source>
        <translation>T = 1</translation>
    </message>
    <message>
        <source>Back to the model's own softmax (temperature 1)</source>
        <translation>恢复模型自身的 softmax（温度 1）</translation>
    </message>
    <message>
        <source>T = %1</source>
        <translation>T = %1</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>No attention logits to compare for this selection.</source>
        <translation>当前选择没有可比较的注意力 logits。</translation>
    </message>
    <message>
        <source>With Dh = 1 the scaling divides by √Dh = 1 and changes nothing: at T = %1, %2 of %3 query rows put more than %4 of their weight on one key.</source>
        <translation>Dh = 1 时，缩放只是除以 √Dh = 1，什么也不改变：在 T = %1 时，%3 个查询行中有 %2 行把超过 %4 的权重放在同一个键上。</translation>
    </message>
    <message>
        <source>Unscaled logits spread √Dh = %1 times wider, yet at T = %2 no query row (of %3) puts more than %4 of its weight on one key, with or without the ÷√Dh.</source>
        <translation>未缩放的 logits 分布宽 √Dh = %1 倍，但在 T = %2 时，无论是否除以 √Dh，%3 个查询行中都没有一行把超过 %4 的权重放在同一个键上。</translation>
    </message>
    <message>
        <source>Unscaled logits spread √Dh = %1 times wider, yet here the ÷√Dh spares no row: at T = %2, %3 of %4 query rows put more than %5 of their weight on one key, with or without it.</source>
        <translation>未缩放的 logits 分布宽 √Dh = %1 倍，但这里除以 √Dh 并没有让任何一行免于饱和：在 T = %2 时，无论是否除以 √Dh，%4 个查询行中都有 %3 行把超过 %5 的权重放在同一个键上。</translation>
    </message>
    <message>
        <source>Unscaled logits spread √Dh = %1 times wider, so softmax saturates more often without the ÷√Dh: at T = %2, %3 of %4 query rows put more than %5 of their weight on one key without it, %6 with it.</source>
        <translation>未缩放的 logits 分布宽 √Dh = %1 倍，因此不除以 √Dh 时 softmax 更常饱和：在 T = %2 时，%4 个查询行中，不除以 √Dh 有 %3 行把超过 %5 的权重放在同一个键上，除以 √Dh 后有 %6 行。</translation>
    </message>
    <message>
        <source>Softmax of a query row: no attention block in focus</source>
        <translation>查询行的 softmax：当前没有聚焦的注意力块</translation>
    </message>
    <message>
        <source>weight at T = %1</source>
        <translation>T = %1 时的权重</translation>
    </message>
    <message>
        <source>masked key (weight 0)</source>
        <translation>被掩码的键（权重 0）</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Softmax of query %1 “%2”, head %3</source>
        <translation>查询 %1 “%2” 的 softmax，头 %3</translation>
    </message>
    <message>
        <source>: every key masked, the row is NaN</source>
        <translation>：所有键都被掩码，该行为 NaN</translation>
    </message>
    <message>
        <source>Logits: nothing to show</source>
        <translation>Logits：无可显示内容</translation>
    </message>
    <message>
        <source>logit</source>
        <translation>logit</translation>
    </message>
    <message>
        <source>entries (query, key pairs)</source>
        <translation>条目数（查询–键对）</translation>
    </message>
    <message>
        <source>QKᵀ, unscaled</source>
        <translation>QKᵀ，未缩放</translation>
    </message>
    <message>
        <source>QKᵀ / √Dh (what the model's softmax sees)</source>
        <translation>QKᵀ / √Dh（模型的 softmax 实际看到的值）</translation>
    </message>
    <message>
        <source>Logits of head %1, with and without ÷√%2</source>
        <translation>头 %1 的 logits：除以 √%2 前后对比</translation>
    </message>
    <message>
        <source>Head entropy: no attention block in focus</source>
        <translation>头的熵：当前没有聚焦的注意力块</translation>
    </message>
    <message>
        <source>head (darker: in focus) · dashed: dead above %1</source>
        <translation>头（深色：当前聚焦）· 虚线：高于 %1 视为失效</translation>
    </message>
    <message>
        <source>entropy / log n</source>
        <translation>熵 / log n</translation>
    </message>
    <message>
        <source>Entropy per head at T = 1 (click a bar to focus it)</source>
        <translation>每个头在 T = 1 时的熵（点击柱形可聚焦该头）</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::ColorLegend</name>
    <message>
        <source>masked (−∞)</source>
        <translation>被掩码（−∞）</translation>
    </message>
    <message>
        <source>NaN</source>
        <translation>NaN</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::ContinueBox</name>
    <message>
        <source>0 always takes the most probable piece; above 1 the guesses spread out</source>
        <translation>0 总是取概率最高的片段；大于 1 时猜测更分散</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Temperature:</source>
        <translation>温度：</translation>
    </message>
    <message>
        <source>Top-k:</source>
        <translation>Top-k：</translation>
    </message>
    <message>
        <source>Top-p:</source>
        <translation>Top-p：</translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation>种子：</translation>
    </message>
    <message>
        <source>Append the next piece</source>
        <translation>追加下一个片段</translation>
    </message>
    <message>
        <source>Draws the piece after the sentence's last one, appends it to the sentence and runs the model again (attnlab export --generate draws the same way)</source>
        <translation>抽取句子最后一个片段之后的片段，追加到句子末尾并重新运行模型（命令行导出的 --generate 以同样方式抽取）</translation>
    </message>
    <message>
        <source>Draw %1 for sentence %2: “%3” (p = %4)</source>
        <translation>句子 %2 的第 %1 次抽取：“%3”（p = %4）</translation>
    </message>
    <message>
        <source>Same numbers as the whole pass: attention rows within %1, logits within %2.</source>
        <translation>与完整前向计算的数值相同：注意力行相差不超过 %1，logits 相差不超过 %2。</translation>
    </message>
    <message>
        <source>Not the whole pass's numbers: attention rows differ by %1, logits by %2.</source>
        <translation>与完整前向计算的数值不同：注意力行相差 %1，logits 相差 %2。</translation>
    </message>
    <message>
        <source>Same logits as the whole pass, within %1 (no attention rows traced: tiled layers).</source>
        <translation>与完整前向计算的 logits 相同，相差不超过 %1（分块计算的层没有记录注意力行）。</translation>
    </message>
    <message>
        <source>Not the whole pass's logits: they differ by %1.</source>
        <translation>与完整前向计算的 logits 不同：相差 %1。</translation>
    </message>
    <message>
        <source>KV cache: “%1” decoded alone at position %2. In each of the %3 layers its one query row %4 meets the cached keys and values %5: %6 multiply-adds instead of %7 for the whole text again.</source>
        <translation>KV 缓存：“%1”在位置 %2 单独解码。在 %3 层中的每一层，它唯一的一行查询 %4 与缓存的键和值 %5 相遇：只需 %6 次乘加，而整段文字重算需要 %7 次。</translation>
    </message>
    <message>
        <source>The KV cache does not serve this model as it is now (it serves GPT-2's order as published: pre-norm, the causal mask, learned positions), so the whole text ran again.</source>
        <translation>KV 缓存不适用于当前这个模型（它适用于按原样发布的 GPT-2 结构：前置归一化、因果掩码、学习到的位置编码），所以整段文字重新运行了一遍。</translation>
    </message>
    <message>
        <source>The KV-cache check of the drawn piece could not run (%1); every step above is complete.</source>
        <translation>无法用 KV 缓存检查抽到的片段（%1）；上面的每一步都已完整计算。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::ExercisePanel</name>
    <message>
        <source>Predict the shape</source>
        <translation>预测形状</translation>
    </message>
    <message>
        <source>Find the bug</source>
        <translation>找出错误</translation>
    </message>
    <message>
        <source>Fix the mask</source>
        <translation>修正掩码</translation>
    </message>
    <message>
        <source>English</source>
        <translation>英文</translation>
    </message>
    <message>
        <source>Exercise language</source>
        <translation>练习语言</translation>
    </message>
    <message>
        <source>Exercises</source>
        <translation>练习</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>开始(&amp;S)</translation>
    </message>
    <message>
        <source>Teachers' folder…</source>
        <translation>教师文件夹…</translation>
    </message>
    <message>
        <source>Drop exercise files (*.json, see docs/exercises.md) into this folder, then Reload</source>
        <translation>将练习文件（*.json，见 docs/exercises.md）放入此文件夹，然后点击“重新加载”</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新加载</translation>
    </message>
    <message>
        <source>Your answer</source>
        <translation>你的答案</translation>
    </message>
    <message>
        <source>The faulty step</source>
        <translation>出错的步骤</translation>
    </message>
    <message>
        <source>What you see</source>
        <translation>你观察到的现象</translation>
    </message>
    <message>
        <source>What goes wrong there? (e.g. rows do not sum to 1)</source>
        <translation>那里出了什么问题？（例如：各行之和不为 1）</translation>
    </message>
    <message>
        <source>The step where it goes wrong:</source>
        <translation>出错的步骤：</translation>
    </message>
    <message>
        <source>The symptom:</source>
        <translation>现象：</translation>
    </message>
    <message>
        <source>Reset the grid</source>
        <translation>重置网格</translation>
    </message>
    <message>
        <source>&amp;Check</source>
        <translation>检查(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Hint</source>
        <translation>提示(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Reveal</source>
        <translation>显示答案(&amp;R)</translation>
    </message>
    <message>
        <source>Compare with the correct run</source>
        <translation>与正确的运行结果对比</translation>
    </message>
    <message>
        <source>Leave</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Leave the exercise: the planted bug is removed and the inputs stay</source>
        <translation>退出练习：植入的错误将被移除，输入保持不变</translation>
    </message>
    <message>
        <source>Some exercise files could not be used:
%1</source>
        <translation>部分练习文件无法使用：
%1</translation>
    </message>
    <message>
        <source>%1 %2. %3 %4</source>
        <translation>%1 %2. %3 %4</translation>
    </message>
    <message>
        <source>%1 · level %2 · %3</source>
        <translation>%1 · 难度 %2 · %3</translation>
    </message>
    <message>
        <source>No exercises</source>
        <translation>没有练习</translation>
    </message>
    <message>
        <source>%1 · level %2 · up to %3 points. Press Start to begin.%4</source>
        <translation>%1 · 难度 %2 · 最高 %3 分。点击“开始”开始练习。%4</translation>
    </message>
    <message>
        <source>&lt;br&gt;Solved before for %1 points.</source>
        <translation>&lt;br&gt;此前已解答，得 %1 分。</translation>
    </message>
    <message>
        <source>What is its &lt;b&gt;shape&lt;/b&gt;?</source>
        <translation>它的&lt;b&gt;形状&lt;/b&gt;是什么？</translation>
    </message>
    <message>
        <source>What are its &lt;b&gt;strides&lt;/b&gt;?</source>
        <translation>它的&lt;b&gt;步长&lt;/b&gt;是多少？</translation>
    </message>
    <message>
        <source>Is it &lt;b&gt;contiguous&lt;/b&gt;?</source>
        <translation>它是&lt;b&gt;连续&lt;/b&gt;的吗？</translation>
    </message>
    <message>
        <source>Step &lt;code&gt;%1&lt;/code&gt; (%2) — its shape is hidden in the window. %3</source>
        <translation>步骤 &lt;code&gt;%1&lt;/code&gt;（%2）——它的形状已在窗口中隐藏。%3</translation>
    </message>
    <message>
        <source>&lt;code&gt;%1&lt;/code&gt;: shape %2, strides %3, %4</source>
        <translation>&lt;code&gt;%1&lt;/code&gt;：形状 %2，步长 %3，%4</translation>
    </message>
    <message>
        <source>contiguous</source>
        <translation>连续</translation>
    </message>
    <message>
        <source>not contiguous</source>
        <translation>不连续</translation>
    </message>
    <message>
        <source>&lt;br&gt;It is computed from:&lt;br&gt;%1</source>
        <translation>&lt;br&gt;它由以下张量计算得到：&lt;br&gt;%1</translation>
    </message>
    <message>
        <source>A bug is planted somewhere in this run. Step through it in the window — heatmaps, charts, shapes — then choose the step where it first shows and say what you see.</source>
        <translation>本次运行中的某处植入了一个错误。请在窗口中逐步查看（热力图、图表、形状），然后选出错误最先显现的步骤，并描述你观察到的现象。</translation>
    </message>
    <message>
        <source>Click cells to hide (0) or show (1) a key to a query, then Check.</source>
        <translation>点击单元格，决定某个查询看不到（0）还是能看到（1）某个键，然后点击“检查”。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Correct!&lt;/b&gt; +%1 points.&lt;br&gt;%2</source>
        <translation>&lt;b&gt;正确！&lt;/b&gt;+%1 分。&lt;br&gt;%2</translation>
    </message>
    <message>
        <source>Hint %1 of %2: %3</source>
        <translation>提示 %1/%2：%3</translation>
    </message>
    <message>
        <source>&lt;b&gt;The answer:&lt;/b&gt; %1&lt;br&gt;%2</source>
        <translation>&lt;b&gt;答案：&lt;/b&gt;%1&lt;br&gt;%2</translation>
    </message>
    <message>
        <source>&lt;br&gt;The comparison could not be computed: %1</source>
        <translation>&lt;br&gt;无法计算对比结果：%1</translation>
    </message>
    <message>
        <source>Score %1 / %2 · %3 of %4 solved</source>
        <translation>得分 %1 / %2 · 已解答 %3/%4</translation>
    </message>
    <message>
        <source>Find the head</source>
        <translation>找出那个头</translation>
    </message>
    <message>
        <source>Look at the heads of layer %1.</source>
        <translation>请看第 %1 层的各个头。</translation>
    </message>
    <message>
        <source>Look at the heads of every layer.</source>
        <translation>请看每一层的各个头。</translation>
    </message>
    <message>
        <source>The window shows the attention weights of this trained model. Which head puts a large share of its weight %1? %2 Choose it below, or click its heatmap.</source>
        <translation>窗口里显示的是这个训练好的模型的注意力权重。哪个头把很大一部分权重%1？%2 在下面选出它，或者点击它的热力图。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::ExplainPanel</name>
    <message>
        <source>Attention (last layer, mean of heads)</source>
        <translation>注意力（最后一层，各头平均）</translation>
    </message>
    <message>
        <source>The weights the explained position gives each token in the last layer, averaged over the heads. Caveat: it ignores every earlier layer and the values' sizes, so a large weight need not mean a large effect.</source>
        <translation>被解释的位置在最后一层给每个词元的权重，对各个头取平均。注意：它忽略了之前的所有层以及值向量的大小，所以权重大不一定意味着影响大。</translation>
    </message>
    <message>
        <source>Attention rollout</source>
        <translation>注意力展开（rollout）</translation>
    </message>
    <message>
        <source>Each layer's head average plus the identity of the residual connection, rows renormalised, multiplied through the layers (Abnar &amp; Zuidema 2020). Caveat: it treats every head and the residual as equal and ignores the values and the feed-forward layers.</source>
        <translation>每层各头的平均加上残差连接对应的单位矩阵，各行重新归一化，再逐层相乘（Abnar 与 Zuidema，2020）。注意：它把每个头和残差同等看待，并忽略了值向量和前馈层。</translation>
    </message>
    <message>
        <source>Attention flow</source>
        <translation>注意力流（flow）</translation>
    </message>
    <message>
        <source>The same graph as rollout, but how much can flow from each token to the position through the layers: an exact maximum flow per pair of tokens, each row divided by its sum. Caveat: slow (refused beyond a few dozen tokens) and often flat — many tokens reach the same maximum.</source>
        <translation>与展开相同的图，但计算的是从每个词元穿过各层能流到该位置的量：对每一对词元求一次精确的最大流，每行再除以其总和。注意：计算很慢（超过几十个词元会被拒绝），而且结果常常很平——许多词元达到相同的最大值。</translation>
    </message>
    <message>
        <source>Gradient-weighted attention</source>
        <translation>梯度加权注意力</translation>
    </message>
    <message>
        <source>Each head's weights times the loss's gradient with respect to them, negative parts dropped, averaged over heads and accumulated through the layers (Chefer et al. 2021). Caveat: it explains the loss chosen for the backward pass, not one prediction.</source>
        <translation>每个头的权重乘以损失对这些权重的梯度，去掉负的部分，对各头取平均并逐层累积（Chefer 等，2021）。注意：它解释的是为反向传播选择的损失，而不是某一个预测。</translation>
    </message>
    <message>
        <source>Gradient × input</source>
        <translation>梯度 × 输入</translation>
    </message>
    <message>
        <source>The first layer's input times the loss's gradient there, summed over its features; the cell shows the signed number, its colour the size. Caveat: a first-order guess that ignores the attention pattern itself.</source>
        <translation>第一层的输入乘以损失在那里的梯度，再对各个特征求和；格子里显示带符号的数值，颜色表示它的大小。注意：这只是一阶近似，忽略了注意力模式本身。</translation>
    </message>
    <message>
        <source>Token ablation (ground truth)</source>
        <translation>词元消融（标准答案）</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>Run a model to see which tokens mattered.</source>
        <translation>运行一个模型，看看哪些词元起了作用。</translation>
    </message>
    <message>
        <source>Computing the explanations…</source>
        <translation>正在计算解释…</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>ρ</source>
        <translation>ρ</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Rollout</source>
        <translation>展开</translation>
    </message>
    <message>
        <source>Flow</source>
        <translation>流</translation>
    </message>
    <message>
        <source>Grad-attn</source>
        <translation>梯度注意力</translation>
    </message>
    <message>
        <source>Grad×input</source>
        <translation>梯度×输入</translation>
    </message>
    <message>
        <source>Ablation</source>
        <translation>消融</translation>
    </message>
    <message>
        <source>Spearman's ρ between the column's ranking of the other tokens and token ablation's</source>
        <translation>该列对其余词元的排序与词元消融排序之间的 Spearman ρ</translation>
    </message>
    <message>
        <source>Which tokens mattered for &lt;b&gt;%1&lt;/b&gt; (position %2)?</source>
        <translation>对 &lt;b&gt;%1&lt;/b&gt;（位置 %2）来说，哪些词元起了作用？</translation>
    </message>
    <message>
        <source>Knock heads out</source>
        <translation>敲除注意力头</translation>
    </message>
    <message>
        <source>Export the explanations</source>
        <translation>导出解释</translation>
    </message>
    <message>
        <source>There are no explanations to export yet: run a model with the panel shown.</source>
        <translation>还没有可导出的解释：请在显示此面板时运行一个模型。</translation>
    </message>
    <message>
        <source>The position whose prediction is explained: the sentence's [MASK] or last token unless you choose another</source>
        <translation>要解释其预测的位置：默认是句子中的 [MASK] 或最后一个词元，也可以另选</translation>
    </message>
    <message>
        <source>Position:</source>
        <translation>位置：</translation>
    </message>
    <message>
        <source>Each column ranks the sentence's tokens by one method; a darker or brighter cell matters more (each column scaled to its own largest value).</source>
        <translation>每一列用一种方法给句子的词元排序；颜色越深或越亮表示越重要（每列按自己的最大值缩放）。</translation>
    </message>
    <message>
        <source>The last row, ρ, compares a method's ranking with token ablation's: 1 is the same order, 0 no relation.</source>
        <translation>最后一行 ρ 比较某方法的排序与词元消融的排序：1 表示顺序相同，0 表示毫无关系。</translation>
    </message>
    <message>
        <source>Which source tokens mattered for the decoder's &lt;b&gt;%1&lt;/b&gt; (position %2)? Rollout and gradient-weighted attention follow Chefer et al. 2021's rules for encoder–decoders: through the encoder's self-attention, the decoder's and the cross-attention between them — through the decoder's self-attention a row also gathers what the later positions that read it took from the source. Token ablation masks one source token at a time. Flow is defined for one stack only.</source>
        <translation>对解码器的 &lt;b&gt;%1&lt;/b&gt;（位置 %2）来说，哪些源词元重要？Rollout 和梯度加权注意力遵循 Chefer 等 2021 为编码器–解码器给出的规则：依次经过编码器的自注意力、解码器的自注意力以及两者之间的交叉注意力——经过解码器的自注意力，一行还会汇集读取它的后续位置从源句取得的内容。词元消融每次遮蔽一个源词元。Flow 只为单个堆栈定义。</translation>
    </message>
    <message>
        <source>Each token masked as a key for every other position and the model run again: how much the prediction at the explained position changes (|Δ log p| of its top guess for a trained model, how far its output vector moves otherwise). One run per token. With a source sentence, each source token is masked in the encoder and in every cross-attention.</source>
        <translation>依次把每个词元作为键对其他所有位置遮住，再运行一次模型：被解释位置上的预测变化了多少（训练好的模型取其首选猜测的 |Δ log p|，否则取输出向量移动的距离）。每个词元运行一次。有源句时，每个源词元在编码器和每一层交叉注意力中都被遮住。</translation>
    </message>
    <message>
        <source>Spearman's ρ between the column's ranking of the source tokens and token ablation's</source>
        <translation>该列对源词元的排序与词元消融的排序之间的 Spearman ρ</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::ExportDialog</name>
    <message>
        <source>Export all heatmaps</source>
        <translation>导出所有热力图</translation>
    </message>
    <message>
        <source>Folder to write the heatmaps into</source>
        <translation>热力图的保存文件夹</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>PNG (pictures)</source>
        <translation>PNG（图片）</translation>
    </message>
    <message>
        <source>SVG (vector, for print and editing)</source>
        <translation>SVG（矢量图，适合打印和编辑）</translation>
    </message>
    <message>
        <source>CSV (the numbers)</source>
        <translation>CSV（数值）</translation>
    </message>
    <message>
        <source>1× (natural size)</source>
        <translation>1×（原始尺寸）</translation>
    </message>
    <message>
        <source>2× (sharp on slides and high-DPI screens)</source>
        <translation>2×（在幻灯片和高 DPI 屏幕上更清晰）</translation>
    </message>
    <message>
        <source>3×</source>
        <translation>3×</translation>
    </message>
    <message>
        <source>4× (posters)</source>
        <translation>4×（海报）</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop the export; the files written so far are removed</source>
        <translation>停止导出；已写入的文件将被删除</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Folder:</source>
        <translation>文件夹：</translation>
    </message>
    <message>
        <source>Formats:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <source>PNG scale:</source>
        <translation>PNG 缩放倍数：</translation>
    </message>
    <message>
        <source>Choose a folder to export into.</source>
        <translation>请选择要导出到的文件夹。</translation>
    </message>
    <message>
        <source>“%1” is a file, not a folder. Choose a folder.</source>
        <translation>“%1”是文件，不是文件夹。请选择一个文件夹。</translation>
    </message>
    <message>
        <source>The folder “%1” cannot be written to (no permission). Choose another folder.</source>
        <translation>无法写入文件夹“%1”（没有权限）。请选择其他文件夹。</translation>
    </message>
    <message>
        <source>The folder “%1” cannot be created: “%2” cannot be written to. Choose another folder.</source>
        <translation>无法创建文件夹“%1”：无法写入“%2”。请选择其他文件夹。</translation>
    </message>
    <message>
        <source>Nothing to export yet: wait for the forward pass to finish.</source>
        <translation>暂无可导出的内容：请等待前向传播完成。</translation>
    </message>
    <message>
        <source>Choose at least one format: PNG, SVG or CSV.</source>
        <translation>请至少选择一种格式：PNG、SVG 或 CSV。</translation>
    </message>
    <message>
        <source>Writing %1 files…</source>
        <translation>正在写入 %1 个文件…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Export heatmaps into</source>
        <translation>将热力图导出到</translation>
    </message>
    <message>
        <source>Written %1 of %2 files…</source>
        <translation>已写入 %1/%2 个文件…</translation>
    </message>
    <message>
        <source>Done: %1 files in “%2”.</source>
        <translation>完成：已在“%2”中写入 %1 个文件。</translation>
    </message>
    <message>
        <source>%1 files to write: one per attention block, sentence, head and format.</source>
        <translation>需写入 %1 个文件：每个注意力模块、句子、头和格式各一个。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::FullLayerBox</name>
    <message>
        <source>Keep every score step of one layer (all its heads, cell by cell) while the other layers run tiled: a long text's whole trace would not fit, one layer's does.</source>
        <translation>保留某一层的每个分数步骤（它的所有头，逐格显示），其余各层分块计算：长文本的完整记录放不下，一层的记录放得下。</translation>
    </message>
    <message>
        <source>no layer</source>
        <translation>不保留</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>layers %1</source>
        <translation>第 %1 层</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::GradNormChart</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Largest gradient: %1 (%2). Smallest: %3 (%4). Parameters with no gradient at all: %5.</source>
        <translation>最大的梯度：%1（%2）。最小的：%3（%4）。完全没有梯度的参数：%5 个。</translation>
    </message>
    <message>
        <source>No gradients: choose a loss under “gradients” in the model panel to run the backward pass.</source>
        <translation>没有梯度：在模型面板的“梯度”中选择一个损失，即可运行反向传播。</translation>
    </message>
    <message>
        <source>‖∂L/∂p‖ per parameter (log scale)</source>
        <translation>每个参数的 ‖∂L/∂p‖（对数刻度）</translation>
    </message>
    <message>
        <source>0 — no gradient</source>
        <translation>0 —— 没有梯度</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::GuidedTour</name>
    <message>
        <source>Your sentences</source>
        <translation>你的句子</translation>
    </message>
    <message>
        <source>Type one sentence per line. Together the lines form the batch that flows through the model, and every change is computed again at once.</source>
        <translation>每行输入一个句子。所有行合在一起组成流经模型的批次，每次修改都会立即重新计算。</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>Each sentence is cut into tokens. Shorter sentences are filled with [PAD] so that the batch is a rectangle: B sentences × S tokens.</source>
        <translation>每个句子被切分成词元。较短的句子用 [PAD] 补齐，使批次成为一个矩形：B 个句子 × S 个词元。</translation>
    </message>
    <message>
        <source>The model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>d_model is the width of every token's vector, heads the number of attention heads (they must divide d_model). The mask, the LayerNorm placement and the number of layers are set here too.</source>
        <translation>d_model 是每个词元向量的宽度，头数是注意力头的个数（必须能整除 d_model）。掩码、LayerNorm 的位置和层数也在这里设置。</translation>
    </message>
    <message>
        <source>Every step</source>
        <translation>每一个步骤</translation>
    </message>
    <message>
        <source>The encoder as a list of operations, in the order they run. Click one, or press ← and → to step; PgUp and PgDn jump a layer.</source>
        <translation>编码器按执行顺序列出的所有运算。点击其中一个，或按 ← 和 → 逐步前进；PgUp 和 PgDn 跳过一层。</translation>
    </message>
    <message>
        <source>What happens and why</source>
        <translation>发生了什么，为什么</translation>
    </message>
    <message>
        <source>Each step has a name, a short explanation and its formula. This one projects every token's vector to its query.</source>
        <translation>每个步骤都有名称、简短的解释和公式。这一步把每个词元的向量投影成它的查询。</translation>
    </message>
    <message>
        <source>Shapes and strides</source>
        <translation>形状与步长</translation>
    </message>
    <message>
        <source>The shape diagram shows the tensor before and after the step, with axis names and strides. Here view splits D into H heads of Dh numbers without moving any of them.</source>
        <translation>形状图展示这一步前后的张量，以及轴名和步长。这里 view 把 D 拆成 H 个头、每个头 Dh 个数，没有移动任何一个数。</translation>
    </message>
    <message>
        <source>The same step in PyTorch</source>
        <translation>同一步的 PyTorch 写法</translation>
    </message>
    <message>
        <source>Every step is also one line of PyTorch. The tests check each number against PyTorch itself.</source>
        <translation>每个步骤也是一行 PyTorch 代码。测试会把每一个数都和 PyTorch 的结果核对。</translation>
    </message>
    <message>
        <source>Attention heatmaps</source>
        <translation>注意力热力图</translation>
    </message>
    <message>
        <source>After the softmax every head has a (queries × keys) matrix whose rows sum to 1. Click a head to enlarge it and hover a cell to read its value.</source>
        <translation>softmax 之后，每个头都有一个（查询 × 键）矩阵，每一行的和为 1。点击某个头可以放大，鼠标悬停在格子上可以读出数值。</translation>
    </message>
    <message>
        <source>Other views</source>
        <translation>其他视图</translation>
    </message>
    <message>
        <source>Lines, the model view, the neuron view, the mask comparison and the charts show the same step in other ways.</source>
        <translation>连线、模型视图、神经元视图、掩码对比和图表，用不同的方式展示同一个步骤。</translation>
    </message>
    <message>
        <source>One layer done</source>
        <translation>一层完成</translation>
    </message>
    <message>
        <source>The residual connections, LayerNorm and the feed-forward network complete the layer. Next: File ▸ Samples… for prepared lessons, or Exercises (Ctrl+E) to test yourself. Help ▸ Guided tour shows this tour again.</source>
        <translation>残差连接、LayerNorm 和前馈网络完成这一层。接下来：“文件 ▸ 示例课程…”里有准备好的课程，或者打开“练习”（Ctrl+E）检验自己。“帮助 ▸ 导览”可以再看一遍。</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>上一步</translation>
    </message>
    <message>
        <source>End tour</source>
        <translation>结束导览</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Finish</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一步</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::HeadKnockout</name>
    <message>
        <source>Layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Knocked out alone, these heads raise the loss most: %1</source>
        <translation>单独敲除时，这些头使损失上升最多：%1</translation>
    </message>
    <message>
        <source>Click a head to knock it out and every panel runs again without it; click again to bring it back.</source>
        <translation>点击一个头即可把它敲除，所有面板都会在没有它的情况下重新运行；再点一次即可恢复。</translation>
    </message>
    <message>
        <source>Knocked out as:</source>
        <translation>敲除方式：</translation>
    </message>
    <message>
        <source>zero output</source>
        <translation>输出置零</translation>
    </message>
    <message>
        <source>its mean output</source>
        <translation>换成平均输出</translation>
    </message>
    <message>
        <source>Zero: the head's output is set to 0. Mean: to its average over every real position of the sentences (from a run with every head in) — the head still adds what it always adds, but no longer depends on the sentence, so only its sentence-specific work is lost.</source>
        <translation>置零：这个头的输出设为 0。平均：换成它在各句所有真实位置上的平均值（取自所有头都在的一次运行）——这个头仍然加上它总会加上的部分，但不再随句子变化，因此只失去它针对具体句子的作用。</translation>
    </message>
    <message>
        <source>Decoder %1</source>
        <translation>解码器 %1</translation>
    </message>
    <message>
        <source>Cross %1</source>
        <translation>交叉 %1</translation>
    </message>
    <message>
        <source>Encoder %1</source>
        <translation>编码器 %1</translation>
    </message>
    <message>
        <source>the decoder's self-attention</source>
        <translation>解码器的自注意力</translation>
    </message>
    <message>
        <source>the cross-attention (the decoder reading the source)</source>
        <translation>交叉注意力（解码器读取源句）</translation>
    </message>
    <message>
        <source>the encoder's self-attention</source>
        <translation>编码器的自注意力</translation>
    </message>
    <message>
        <source>Layer %1 of %2</source>
        <translation>%2 的第 %1 层</translation>
    </message>
    <message>
        <source>Layer %1, head %2 of %3: click to knock it out</source>
        <translation>%3 第 %1 层第 %2 个头：点击即可敲除它</translation>
    </message>
    <message>
        <source>Layer %1, head %2 of %3 knocked out alone: the loss goes from %4 to %5 (%6). Click to knock it out.</source>
        <translation>单独敲除%3第 %1 层第 %2 个头：损失从 %4 变为 %5（%6）。点击即可敲除它。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::HeadPicker</name>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>Or click the head's heatmap in the window (on an attention-weights step).</source>
        <translation>也可以在窗口里点击那个头的热力图（在注意力权重那一步）。</translation>
    </message>
    <message>
        <source>Layer:</source>
        <translation>层：</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>第 %1 个头</translation>
    </message>
    <message>
        <source>on the &lt;b&gt;previous token&lt;/b&gt;</source>
        <translation>放在&lt;b&gt;前一个词元&lt;/b&gt;上</translation>
    </message>
    <message>
        <source>on &lt;b&gt;its own position&lt;/b&gt;</source>
        <translation>放在&lt;b&gt;自身位置&lt;/b&gt;上</translation>
    </message>
    <message>
        <source>on the &lt;b&gt;first token&lt;/b&gt;</source>
        <translation>放在&lt;b&gt;第一个词元&lt;/b&gt;上</translation>
    </message>
    <message>
        <source>on &lt;b&gt;earlier copies of the same token&lt;/b&gt;</source>
        <translation>放在&lt;b&gt;前面出现过的同一个词元&lt;/b&gt;上</translation>
    </message>
    <message>
        <source>on &lt;b&gt;the token that followed the previous copy of the current token&lt;/b&gt; (an induction head)</source>
        <translation>放在&lt;b&gt;当前词元上一次出现时紧随其后的那个词元&lt;/b&gt;上（归纳头）</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::HeatmapGrid</name>
    <message>
        <source>← All heads</source>
        <translation>← 所有头</translation>
    </message>
    <message>
        <source>Show every head again (Esc)</source>
        <translation>重新显示所有头（Esc）</translation>
    </message>
    <message>
        <source>Hover a cell: query token, key token, raw score, scaled score and weight.</source>
        <translation>将鼠标悬停在单元格上：查看查询词元、键词元、原始分数、缩放后的分数和权重。</translation>
    </message>
    <message>
        <source>This step is not an attention map (batch, heads, queries, keys).</source>
        <translation>此步骤不是注意力图（批、头、查询、键）。</translation>
    </message>
    <message>
        <source>mean weight</source>
        <translation>平均权重</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>raw score</source>
        <translation>原始分数</translation>
    </message>
    <message>
        <source>score</source>
        <translation>分数</translation>
    </message>
    <message>
        <source>1 head</source>
        <translation>1 个头</translation>
    </message>
    <message>
        <source>%1 heads</source>
        <translation>%1 个头</translation>
    </message>
    <message>
        <source>Head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>Click to enlarge head %1</source>
        <translation>点击放大头 %1</translation>
    </message>
    <message>
        <source>query ‘%1’ (row %2) → key ‘%3’ (col %4)</source>
        <translation>查询 ‘%1’（行 %2）→ 键 ‘%3’（列 %4）</translation>
    </message>
    <message>
        <source>raw score qk = %1</source>
        <translation>原始分数 qk = %1</translation>
    </message>
    <message>
        <source>scaled = %1</source>
        <translation>缩放后 = %1</translation>
    </message>
    <message>
        <source>masked (−∞) → weight NaN (every key of this row is masked)</source>
        <translation>被掩码（−∞）→ 权重 NaN（该行所有键均被掩码）</translation>
    </message>
    <message>
        <source>masked (−∞) → weight 0</source>
        <translation>被掩码（−∞）→ 权重 0</translation>
    </message>
    <message>
        <source>weight = %1</source>
        <translation>权重 = %1</translation>
    </message>
    <message>
        <source>value = %1</source>
        <translation>值 = %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>‘%1’</source>
        <translation>‘%1’</translation>
    </message>
    <message>
        <source>Row %1 has every key masked: softmax of all −∞ is 0/0 = NaN (PyTorch gives NaN too). Unmask at least one key.</source>
        <translation>行 %1 的所有键均被掩码：对全 −∞ 做 softmax 得到 0/0 = NaN（PyTorch 同样得到 NaN）。请至少取消掩码一个键。</translation>
    </message>
    <message>
        <source>Rows %1 have every key masked: softmax of all −∞ is 0/0 = NaN (PyTorch gives NaN too). Unmask at least one key in each.</source>
        <translation>行 %1 的所有键均被掩码：对全 −∞ 做 softmax 得到 0/0 = NaN（PyTorch 同样得到 NaN）。请在每行中至少取消掩码一个键。</translation>
    </message>
    <message>
        <source>1 cell is NaN (magenta): a NaN or an overflow came in from an earlier step.</source>
        <translation>1 个单元格为 NaN（品红色）：NaN 或溢出来自之前的某个步骤。</translation>
    </message>
    <message>
        <source>%1 cells are NaN (magenta): a NaN or an overflow came in from an earlier step.</source>
        <translation>%1 个单元格为 NaN（品红色）：NaN 或溢出来自之前的某个步骤。</translation>
    </message>
    <message>
        <source>Masked keys get weight exactly 0.</source>
        <translation>被掩码的键权重恰好为 0。</translation>
    </message>
    <message>
        <source>Click a head to enlarge it.</source>
        <translation>点击某个头可将其放大。</translation>
    </message>
    <message>
        <source>Esc or “All heads” shows every head again.</source>
        <translation>按 Esc 或点击“所有头”可重新显示所有头。</translation>
    </message>
    <message>
        <source>1 computed, 0 skipped</source>
        <translation>1 计算，0 跳过</translation>
    </message>
    <message>
        <source>skipped by the pattern</source>
        <translation>被模式跳过</translation>
    </message>
    <message>
        <source>The mask set %1 of the %2 scores of each head to −∞ (hatched); before this step they held numbers like the others.</source>
        <translation>掩码把每个头的 %2 个分数中的 %1 个设为 −∞（斜线标出）；在这一步之前，它们和其他分数一样是普通数值。</translation>
    </message>
    <message>
        <source>Linear</source>
        <translation>线性</translation>
    </message>
    <message>
        <source>Per row</source>
        <translation>按行</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>对数</translation>
    </message>
    <message>
        <source>Colour scale of the weights: as they are, each query row divided by its largest weight (the structure of long texts), or log₁₀ (small weights told apart). The hover readout always gives the true numbers.</source>
        <translation>权重的颜色刻度：原样显示；每个查询行除以该行的最大权重（看清长文本的结构）；或取 log₁₀（区分很小的权重）。悬停读数始终给出真实数值。</translation>
    </message>
    <message>
        <source>Colour scale</source>
        <translation>颜色刻度</translation>
    </message>
    <message>
        <source>weight ÷ its row's largest</source>
        <translation>权重 ÷ 该行最大值</translation>
    </message>
    <message>
        <source>log₁₀ weight</source>
        <translation>log₁₀ 权重</translation>
    </message>
    <message>
        <source>%1 · sentence %2 · %3 · rows: queries, columns: keys</source>
        <translation>%1 · 句子 %2 · %3 · 行：查询，列：键</translation>
    </message>
    <message>
        <source>Drawing %1 heatmaps of %2 × %3 cells…</source>
        <translation>正在绘制 %1 张 %2 × %3 格的热力图…</translation>
    </message>
    <message>
        <source>gradient ∂L/∂%1</source>
        <translation>梯度 ∂L/∂%1</translation>
    </message>
    <message>
        <source>Hatched: the %1 masked cells of each head, whose gradient is exactly 0.</source>
        <translation>画斜线的是每个头中被掩码的 %1 个格子，它们的梯度恰好为 0。</translation>
    </message>
    <message>
        <source>Hatched: the %1 masked cells of each head. Their gradient is not 0, but the softmax multiplies it by P = 0: nothing flows on to the scores.</source>
        <translation>画斜线的是每个头中被掩码的 %1 个格子。它们的梯度不为 0，但 softmax 会把它乘以 P = 0：没有梯度继续流向分数。</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>被掩码</translation>
    </message>
    <message>
        <source>gradient = %1</source>
        <translation>梯度 = %1</translation>
    </message>
    <message>
        <source>Click to enlarge head %1; right-click to knock it out</source>
        <translation>点击放大头 %1；右键点击可敲除它</translation>
    </message>
    <message>
        <source>Click a head to enlarge it; right-click it to knock it out.</source>
        <translation>点击某个头可将其放大；右键点击可将其敲除。</translation>
    </message>
    <message>
        <source>Right-click to knock this head out. Esc or “All heads” shows every head again.</source>
        <translation>右键点击可敲除这个头。按 Esc 或点击“所有头”可重新显示所有头。</translation>
    </message>
    <message>
        <source>head %1 of %2</source>
        <translation>%2 个头中的头 %1</translation>
    </message>
    <message>
        <source>Click a head to enlarge it; right-click it to knock it out or to see it cell by cell.</source>
        <translation>点击某个头可将其放大；右键点击可将其敲除，或逐格查看它。</translation>
    </message>
    <message>
        <source>Right-click to knock this head out or to see it cell by cell. Esc or “All heads” shows every head again.</source>
        <translation>右键点击可敲除这个头，或逐格查看它。按 Esc 或点击“所有头”可重新显示所有头。</translation>
    </message>
    <message>
        <source>Right-click this head to knock it out, or to show only its layer's overview again.</source>
        <translation>右键点击这个头可将其敲除，或重新只显示它所在层的概览。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::HeatmapView</name>
    <message>
        <source>downsampled from %1×%2</source>
        <translation>由 %1×%2 降采样</translation>
    </message>
    <message>
        <source>%1×%2, averaged</source>
        <translation>%1×%2，已平均</translation>
    </message>
    <message>
        <source>Drawing %1 × %2 cells…</source>
        <translation>正在绘制 %1 × %2 格…</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::InputPanel</name>
    <message>
        <source>Load a sample batch</source>
        <translation>加载示例批次</translation>
    </message>
    <message>
        <source>Your sentences</source>
        <translation>你的句子</translation>
    </message>
    <message>
        <source>Lesson: %1</source>
        <translation>课程：%1</translation>
    </message>
    <message>
        <source>Exercise: %1</source>
        <translation>练习：%1</translation>
    </message>
    <message>
        <source>Examples of %1</source>
        <translation>%1 的示例</translation>
    </message>
    <message>
        <source>Sample:</source>
        <translation>示例：</translation>
    </message>
    <message>
        <source>Sentences (one per line; together they form the batch):</source>
        <translation>句子（每行一个，所有句子共同组成一个批次）：</translation>
    </message>
    <message>
        <source>Source sentence (one for all, or one per line)</source>
        <translation>源句子（所有句子共用一个，或每行一个）</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>4 × d_model</source>
        <translation>4 × d_model</translation>
    </message>
    <message>
        <source>CPU (Eigen)</source>
        <translation>CPU (Eigen)</translation>
    </message>
    <message>
        <source>auto (GPU if any)</source>
        <translation>自动（优先使用 GPU）</translation>
    </message>
    <message>
        <source>Vulkan (any device)</source>
        <translation>Vulkan（任意设备）</translation>
    </message>
    <message>
        <source>Where the products, softmax and activations run. "Vulkan (any device)" also uses a software device such as lavapipe. ATTNLAB_VULKAN_DEVICE=N picks device N.</source>
        <translation>矩阵乘积、softmax 和激活函数在何处运行。“Vulkan（任意设备）”也会使用 lavapipe 等软件设备。设置 ATTNLAB_VULKAN_DEVICE=N 可选择第 N 个设备。</translation>
    </message>
    <message>
        <source>This build has no Vulkan compute path (built without the Vulkan headers or glslc).</source>
        <translation>此版本不含 Vulkan 计算路径（构建时缺少 Vulkan 头文件或 glslc）。</translation>
    </message>
    <message>
        <source>full (every score)</source>
        <translation>完整（保留全部分数）</translation>
    </message>
    <message>
        <source>tiled (overview)</source>
        <translation>分块（概览）</translation>
    </message>
    <message>
        <source>Tiled computes attention block by block (FlashAttention's online softmax) without keeping the (heads × queries × keys) score tensors, so long texts fit in memory; the heatmaps then show the weights averaged into at most %1 × %1 cells.</source>
        <translation>分块模式逐块计算注意力（FlashAttention 的在线 softmax），不保留（头 × 查询 × 键）分数张量，因此长文本也能放入内存；此时热力图显示的权重会被平均到最多 %1 × %1 个单元格中。</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>The most memory a computation may take; above it you are offered the tiled path.</source>
        <translation>一次计算最多可占用的内存；超出时会建议改用分块路径。</translation>
    </message>
    <message>
        <source>d_model (width D):</source>
        <translation>d_model（宽度 D）：</translation>
    </message>
    <message>
        <source>heads (H):</source>
        <translation>头数（H）：</translation>
    </message>
    <message>
        <source>d_ff (FFN width F):</source>
        <translation>d_ff（FFN 宽度 F）：</translation>
    </message>
    <message>
        <source>layers:</source>
        <translation>层数：</translation>
    </message>
    <message>
        <source>mask:</source>
        <translation>掩码：</translation>
    </message>
    <message>
        <source>LayerNorm:</source>
        <translation>LayerNorm：</translation>
    </message>
    <message>
        <source>activation:</source>
        <translation>激活函数：</translation>
    </message>
    <message>
        <source>position code:</source>
        <translation>位置编码：</translation>
    </message>
    <message>
        <source>seed:</source>
        <translation>随机种子：</translation>
    </message>
    <message>
        <source>backend:</source>
        <translation>后端：</translation>
    </message>
    <message>
        <source>attention:</source>
        <translation>注意力：</translation>
    </message>
    <message>
        <source>memory budget:</source>
        <translation>内存预算：</translation>
    </message>
    <message>
        <source>%1 heads need d_model ≥ %1: each head gets d_model / heads numbers, and %2 / %1 is less than one. Lower the heads or raise d_model.</source>
        <translation>%1 个头要求 d_model ≥ %1：每个头分得 d_model / 头数 个数，而 %2 / %1 小于 1。请减少头数或增大 d_model。</translation>
    </message>
    <message>
        <source>%1 heads cannot share d_model = %2 evenly: each head would get %2 / %1 = %3 numbers, and a head needs a whole number. Try heads = %4, or a d_model that %1 divides (e.g. %5). Nothing is recomputed until then.</source>
        <translation>%1 个头无法均分 d_model = %2：每个头将分得 %2 / %1 = %3 个数，但每个头需要整数个。请尝试头数 = %4，或选用能被 %1 整除的 d_model（例如 %5）。在此之前不会重新计算。</translation>
    </message>
    <message>
        <source>Built-in: English + Chinese batch</source>
        <translation>内置：英文 + 中文批次</translation>
    </message>
    <message>
        <source>English batch (padding)</source>
        <translation>英文批次（含填充）</translation>
    </message>
    <message>
        <source>Chinese sentences</source>
        <translation>中文句子</translation>
    </message>
    <message>
        <source>Translation (cross-attention)</source>
        <translation>翻译（交叉注意力）</translation>
    </message>
    <message>
        <source>Long document</source>
        <translation>长文档</translation>
    </message>
    <message>
        <source>Use seeded weights</source>
        <translation>改用随机种子权重</translation>
    </message>
    <message>
        <source>Forget the imported weights: every knob is free again and the weights follow from the seed.</source>
        <translation>丢弃导入的权重：所有参数重新可调，权重由随机种子生成。</translation>
    </message>
    <message>
        <source>Weights: seeded random numbers (File ▸ Import weights… loads a trained model).</source>
        <translation>权重：由随机种子生成的随机数（“文件 ▸ 导入权重…”可加载训练好的模型）。</translation>
    </message>
    <message>
        <source>Weights: &lt;b&gt;%1&lt;/b&gt; — d_model %2, %3 heads, %4 layer(s)%5; the knobs it fixes are locked.</source>
        <translation>权重：&lt;b&gt;%1&lt;/b&gt; — d_model %2，%3 个头，%4 层%5；由它决定的参数已锁定。</translation>
    </message>
    <message>
        <source>, encoder–decoder</source>
        <translation>，编码器–解码器</translation>
    </message>
    <message>
        <source>Which weights compute the attention: seeded random numbers, a small trained model whose heads learned real patterns, or a weights file of your own</source>
        <translation>用哪组权重计算注意力：按种子生成的随机数、注意力头学到了真实模式的小型训练模型，或你自己的权重文件</translation>
    </message>
    <message>
        <source>Random weights (seeded)</source>
        <translation>随机权重（按种子）</translation>
    </message>
    <message>
        <source>Trained: %1</source>
        <translation>训练模型：%1</translation>
    </message>
    <message>
        <source>Weights file…</source>
        <translation>权重文件…</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>Tokens (dashed chips are [PAD] padding; with a trained model, red chips are words it does not know, which it reads as [UNK]):</source>
        <translation>词元（虚线框是 [PAD] 填充；使用训练模型时，红色框是它不认识的词，会被当作 [UNK] 读入）：</translation>
    </message>
    <message>
        <source>File: %1</source>
        <translation>文件：%1</translation>
    </message>
    <message>
        <source>attention variant:</source>
        <translation>注意力变体：</translation>
    </message>
    <message>
        <source>Cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>Encoder–decoder: the sentences above become the decoder's input and attend to the source sentence below.</source>
        <translation>编码器–解码器：上面的句子成为解码器的输入，并关注下面的源句子。</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>sum of the output</source>
        <translation>输出之和</translation>
    </message>
    <message>
        <source>next token (trained model)</source>
        <translation>下一个词元（已训练模型）</translation>
    </message>
    <message>
        <source>gradients:</source>
        <translation>梯度：</translation>
    </message>
    <message>
        <source>per position (your answers)</source>
        <translation>逐位置（你的答案）</translation>
    </message>
    <message>
        <source>Also step through the backward pass: the gradient of every step and parameter, from this loss. "sum of the output" is output.sum() (every element, [PAD] too); "next token" is the cross-entropy of a trained model's guess at the next token; "per position" that of its output at each position against the answer you type.</source>
        <translation>同时逐步查看反向传播：从这个损失出发，每一步、每个参数的梯度。“输出之和”就是 output.sum()（每个元素，[PAD] 也算）；“下一个词元”是训练好的模型对下一个词元的猜测的交叉熵；“逐位置”是它在每个位置的输出与你输入的答案之间的交叉熵。</translation>
    </message>
    <message>
        <source>One answer per sentence, e.g. 1 1 3 4 5</source>
        <translation>每个句子一个答案，例如 1 1 3 4 5</translation>
    </message>
    <message>
        <source>The per-position loss compares the model's output at position i with token i of the answer on the sentence's line; positions past the answer's end count for nothing.</source>
        <translation>逐位置损失把模型在位置 i 的输出与该句子那一行答案的第 i 个词元比较；超出答案末尾的位置不计入损失。</translation>
    </message>
    <message>
        <source>answers:</source>
        <translation>答案：</translation>
    </message>
    <message>
        <source>sinusoidal: the fixed code of the original paper; learned: one trained vector per position, as GPT-2 and BERT have (seeded here: random until trained).</source>
        <translation>sinusoidal：原论文中固定的正弦编码；learned：每个位置一个训练得到的向量，与 GPT-2 和 BERT 相同（此处按种子初始化：训练之前是随机的）。</translation>
    </message>
    <message>
        <source>Rows of the learned position table: the longest text the model reads.</source>
        <translation>学习得到的位置表的行数：即模型能读入的最长文本。</translation>
    </message>
    <message>
        <source>position rows:</source>
        <translation>位置行数：</translation>
    </message>
    <message>
        <source>LayerNorm after the last layer</source>
        <translation>最后一层之后的 LayerNorm</translation>
    </message>
    <message>
        <source>A final LayerNorm on what leaves each stack, as nn.TransformerEncoder(norm=…) and GPT-2's ln_f: pre-norm stacks need it, since their last residual is never normalised.</source>
        <translation>对每个堆叠的输出再做一次 LayerNorm，与 nn.TransformerEncoder(norm=…) 和 GPT-2 的 ln_f 相同：pre-norm 堆叠需要它，因为最后一个残差从未被归一化。</translation>
    </message>
    <message>
        <source>full scores in:</source>
        <translation>完整分数：</translation>
    </message>
    <message>
        <source>Begin each sentence with &lt;|endoftext|&gt;</source>
        <translation>每句以 &lt;|endoftext|&gt; 开头</translation>
    </message>
    <message>
        <source>GPT-2 saw every document begin after &lt;|endoftext|&gt;: put it first (position 0), and many heads rest their weight on it. Off: the sentence alone, as typed.</source>
        <translation>GPT-2 训练时看到的每篇文档都从 &lt;|endoftext|&gt; 之后开始：把它放在最前面（位置 0），许多头会把权重停放在它上面。不勾选：只有输入的句子本身。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::LensPanel</name>
    <message>
        <source>What would the model predict if it stopped after each layer? Run a trained model to see.</source>
        <translation>如果模型在每一层之后就停下，它会预测什么？运行一个训练过的模型即可看到。</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>Computing the logit lens…</source>
        <translation>正在计算 logit 透镜…</translation>
    </message>
    <message>
        <source>What would the model predict if it stopped after each layer?</source>
        <translation>如果模型在每一层之后就停下，它会预测什么？</translation>
    </message>
    <message>
        <source>Embeddings</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>After layer %1</source>
        <translation>第 %1 层之后</translation>
    </message>
    <message>
        <source>%1 (the model's answer)</source>
        <translation>%1（模型的答案）</translation>
    </message>
    <message>
        <source>The final answer %1: %2</source>
        <translation>最终答案 %1：%2</translation>
    </message>
    <message>
        <source>Colour: the probability of the model's final answer — a row that brightens to the right is the answer forming. Hover a cell for the top %1. Caveat: earlier layers were never trained to be read by the output head, so a miss there does not mean the information is missing (nostalgebraist 2020).</source>
        <translation>颜色：模型最终答案的概率——一行越往右越亮，就是答案在成形。鼠标停在单元格上可看前 %1 名。注意：较早的层从未被训练成让输出头读取，所以那里猜错并不表示信息缺失（nostalgebraist 2020）。</translation>
    </message>
    <message>
        <source>Each column sends the residual stream after that layer through what follows the last layer: the final LayerNorm where the model has one, then the output head, then a softmax over the vocabulary.</source>
        <translation>每一列把该层之后的残差流送入最后一层之后的部分：模型有最终 LayerNorm 时先经过它，再经过输出头，最后在词表上做 softmax。</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Layer %1 = answer</source>
        <translation>第 %1 层 = 答案</translation>
    </message>
    <message>
        <source>Layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>Export the logit lens</source>
        <translation>导出 logit 透镜</translation>
    </message>
    <message>
        <source>There is no logit lens to export yet: run a trained model with the panel shown.</source>
        <translation>还没有可导出的 logit 透镜：请在显示此面板时运行一个训练过的模型。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::LineView</name>
    <message>
        <source>%1 · sentence %2 · queries (left) attend to keys (right)</source>
        <translation>%1 · 句子 %2 · 查询（左）关注键（右）</translation>
    </message>
    <message>
        <source>Choose a step inside the model to see its attention as lines.</source>
        <translation>选择模型内部的一个步骤，即可以连线形式查看其注意力。</translation>
    </message>
    <message>
        <source>Heads:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>Show or hide the lines of head %1</source>
        <translation>显示或隐藏头 %1 的连线</translation>
    </message>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source> With this many tokens, lines under %1 are left out.</source>
        <translation>词元较多，低于 %1 的连线已省略。</translation>
    </message>
    <message>
        <source>Each line's opacity is its attention weight (lines from [PAD] queries are fainter). Hover a token to isolate its lines and read the weights; click a query to choose it.</source>
        <translation>每条连线的不透明度即其注意力权重（来自 [PAD] 查询的连线较淡）。将鼠标悬停在词元上可单独显示其连线并读取权重；点击查询可选中它。</translation>
    </message>
    <message>
        <source> Too many tokens for numbers here: make the view taller.</source>
        <translation>词元过多，无法在此显示数值：请把视图拉高一些。</translation>
    </message>
    <message numerus="yes">
        <source> (No room for %n more head(s): hide some to see them.)</source>
        <translation>
            <numerusform>（还有 %n 个头放不下：隐藏一些头即可看到它们。）</numerusform>
        </translation>
    </message>
    <message>
        <source>Query “%1” (row %2): the numbers beside the keys are its weights, one per visible head; each head's row sums to 1.</source>
        <translation>查询“%1”（行 %2）：键旁边的数字是它的权重，每个可见头一个；每个头的这一行之和为 1。</translation>
    </message>
    <message>
        <source>Key “%1” (column %2): the numbers beside the queries are the weights they give it, one per visible head.</source>
        <translation>键“%1”（列 %2）：查询旁边的数字是各查询分配给它的权重，每个可见头一个。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::MainWindow</name>
    <message>
        <source>Exercises</source>
        <translation>练习</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>Heatmap as &amp;PNG…</source>
        <translation>热力图导出为 PNG(&amp;P)…</translation>
    </message>
    <message>
        <source>Heatmap as &amp;SVG…</source>
        <translation>热力图导出为 SVG(&amp;S)…</translation>
    </message>
    <message>
        <source>Heatmap values as &amp;CSV…</source>
        <translation>热力图数值导出为 CSV(&amp;C)…</translation>
    </message>
    <message>
        <source>&amp;Copy heatmap to the clipboard</source>
        <translation>复制热力图到剪贴板(&amp;C)</translation>
    </message>
    <message>
        <source>Current &amp;view or chart as PNG…</source>
        <translation>当前视图或图表导出为 PNG(&amp;V)…</translation>
    </message>
    <message>
        <source>Current view or chart as S&amp;VG…</source>
        <translation>当前视图或图表导出为 SVG(&amp;V)…</translation>
    </message>
    <message>
        <source>Copy current view or chart</source>
        <translation>复制当前视图或图表</translation>
    </message>
    <message>
        <source>&amp;Every head of every layer…</source>
        <translation>所有层的所有头(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Handout (PDF)…</source>
        <translation>讲义（PDF）(&amp;H)…</translation>
    </message>
    <message>
        <source>&amp;Bundle (npz, weights, manifest, images)…</source>
        <translation>数据包（npz、权重、清单、图像）(&amp;B)…</translation>
    </message>
    <message>
        <source>&amp;Colours</source>
        <translation>配色(&amp;C)</translation>
    </message>
    <message>
        <source>Copying the heatmap</source>
        <translation>复制热力图</translation>
    </message>
    <message>
        <source>Copied head %1 of sentence %2 to the clipboard.</source>
        <translation>已将句子 %2 的头 %1 复制到剪贴板。</translation>
    </message>
    <message>
        <source>Export heatmap</source>
        <translation>导出热力图</translation>
    </message>
    <message>
        <source>PNG scale</source>
        <translation>PNG 缩放比例</translation>
    </message>
    <message>
        <source>Pixels per unit (2 = sharp on slides, 192 dpi):</source>
        <translation>每单位像素数（2 = 在幻灯片上清晰，192 dpi）：</translation>
    </message>
    <message>
        <source>Exporting the heatmap</source>
        <translation>导出热力图</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Copying the view</source>
        <translation>复制视图</translation>
    </message>
    <message>
        <source>Copied the %1 view to the clipboard.</source>
        <translation>已将“%1”视图复制到剪贴板。</translation>
    </message>
    <message>
        <source>Export %1</source>
        <translation>导出“%1”</translation>
    </message>
    <message>
        <source>Pixels per screen pixel (2 = sharp on slides, 192 dpi):</source>
        <translation>每个屏幕像素对应的像素数（2 = 在幻灯片上清晰，192 dpi）：</translation>
    </message>
    <message>
        <source>Exporting the view</source>
        <translation>导出视图</translation>
    </message>
    <message>
        <source>Export handout</source>
        <translation>导出讲义</translation>
    </message>
    <message>
        <source>PDF (*.pdf)</source>
        <translation>PDF (*.pdf)</translation>
    </message>
    <message>
        <source>Writing the handout…</source>
        <translation>正在生成讲义…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Exporting the handout</source>
        <translation>导出讲义</translation>
    </message>
    <message>
        <source>Export bundle into folder</source>
        <translation>将数据包导出到文件夹</translation>
    </message>
    <message>
        <source>Exporting the bundle</source>
        <translation>导出数据包</translation>
    </message>
    <message>
        <source>Bundle written to %1</source>
        <translation>数据包已写入 %1</translation>
    </message>
    <message>
        <source>Attention Lab</source>
        <translation>Attention Lab</translation>
    </message>
    <message>
        <source>Input and model</source>
        <translation>输入与模型</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Not recomputed: %1</source>
        <translation>未重新计算：%1</translation>
    </message>
    <message>
        <source>Cancelled: the window still shows the previous result. Change an input to compute again.</source>
        <translation>已取消：窗口仍显示上一次的结果。修改任一输入即可重新计算。</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Zoom &amp;in</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Reset zoom</source>
        <translation>重置缩放(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Presenter mode</source>
        <translation>演示模式(&amp;P)</translation>
    </message>
    <message>
        <source>E&amp;xercises</source>
        <translation>练习(&amp;X)</translation>
    </message>
    <message>
        <source>&amp;Exercise panel</source>
        <translation>练习面板(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Reset progress…</source>
        <translation>重置进度(&amp;R)…</translation>
    </message>
    <message>
        <source>Reset progress</source>
        <translation>重置进度</translation>
    </message>
    <message>
        <source>Forget which exercises are solved and the score?</source>
        <translation>要清除已解答的练习记录和得分吗？</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Keys</source>
        <translation>快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>快捷键</translation>
    </message>
    <message>
        <source>← / →: previous / next step
Space: play / pause
Home / End: first / last step
PgUp / PgDn: previous / next layer
Ctrl + / Ctrl −: zoom (for projectors)
F11: presenter mode (Esc leaves it)
Esc: back from an enlarged head</source>
        <translation>← / →：上一步 / 下一步
Space：播放 / 暂停
Home / End：第一步 / 最后一步
PgUp / PgDn：上一层 / 下一层
Ctrl + / Ctrl −：缩放（适用于投影仪）
F11：演示模式（按 Esc 退出）
Esc：从放大的头返回</translation>
    </message>
    <message>
        <source>Over the memory budget</source>
        <translation>超出内存预算</translation>
    </message>
    <message>
        <source>Keeping every score tensor of this text needs about %1 MiB, more than the memory budget of %2 MiB.</source>
        <translation>保存这段文本的所有分数张量约需 %1 MiB，超过了 %2 MiB 的内存预算。</translation>
    </message>
    <message>
        <source>The tiled path computes the same outputs block by block without the (heads × queries × keys) tensors and shows overview heatmaps: about %1 MiB.</source>
        <translation>分块路径逐块计算出相同的输出，无需（头 × 查询 × 键）张量，并显示概览热力图：约需 %1 MiB。</translation>
    </message>
    <message>
        <source>Compute tiled</source>
        <translation>分块计算</translation>
    </message>
    <message>
        <source>Keep the previous result</source>
        <translation>保留上一次的结果</translation>
    </message>
    <message>
        <source>Even the tiled path would need about %1 MiB. </source>
        <translation>即使采用分块路径也约需 %1 MiB。</translation>
    </message>
    <message>
        <source>Shorten the text, use fewer layers or a smaller d_model, or raise the memory budget.</source>
        <translation>请缩短文本、减少层数或减小 d_model，或者提高内存预算。</translation>
    </message>
    <message>
        <source>Panels</source>
        <translation>面板</translation>
    </message>
    <message>
        <source>Zoom %1 %</source>
        <translation>缩放 %1%</translation>
    </message>
    <message>
        <source>Vulkan on %1, device time %2 ms</source>
        <translation>Vulkan（%1），设备耗时 %2 ms</translation>
    </message>
    <message>
        <source> — %1</source>
        <translation> — %1</translation>
    </message>
    <message>
        <source>%1 steps computed in %2 ms, about %3 MiB (%4)</source>
        <translation>已计算 %1 个步骤，用时 %2 ms，约 %3 MiB（%4）</translation>
    </message>
    <message>
        <source>&amp;Open session…</source>
        <translation>打开会话(&amp;O)…</translation>
    </message>
    <message>
        <source>Open session</source>
        <translation>打开会话</translation>
    </message>
    <message>
        <source>Attention Lab sessions (*.attnlab);;All files (*)</source>
        <translation>Attention Lab 会话 (*.attnlab);;所有文件 (*)</translation>
    </message>
    <message>
        <source>&amp;Save session…</source>
        <translation>保存会话(&amp;S)…</translation>
    </message>
    <message>
        <source>Save session</source>
        <translation>保存会话</translation>
    </message>
    <message>
        <source>Attention Lab sessions (*.attnlab)</source>
        <translation>Attention Lab 会话 (*.attnlab)</translation>
    </message>
    <message>
        <source>&amp;Recent sessions</source>
        <translation>最近的会话(&amp;R)</translation>
    </message>
    <message>
        <source>(none yet)</source>
        <translation>（暂无）</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Saving the session</source>
        <translation>保存会话</translation>
    </message>
    <message>
        <source>Session saved to %1</source>
        <translation>会话已保存到 %1</translation>
    </message>
    <message>
        <source>Opening the session</source>
        <translation>打开会话</translation>
    </message>
    <message>
        <source>Session %1 opened</source>
        <translation>已打开会话 %1</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>Follow the &amp;system</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>The weights used last time could not be loaded: %1</source>
        <translation>上次使用的权重无法加载：%1</translation>
    </message>
    <message>
        <source>&amp;Import weights…</source>
        <translation>导入权重(&amp;I)…</translation>
    </message>
    <message>
        <source>Import weights</source>
        <translation>导入权重</translation>
    </message>
    <message>
        <source>Weights (*.safetensors);;All files (*)</source>
        <translation>权重 (*.safetensors);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Importing weights</source>
        <translation>导入权重</translation>
    </message>
    <message>
        <source>Weights imported from %1</source>
        <translation>已从 %1 导入权重</translation>
    </message>
    <message>
        <source>%1: its weights could not be loaded: %2</source>
        <translation>%1：其中的权重无法加载：%2</translation>
    </message>
    <message>
        <source>&amp;Samples…</source>
        <translation>示例课程(&amp;S)…</translation>
    </message>
    <message>
        <source>Guided &amp;tour</source>
        <translation>导览(&amp;T)</translation>
    </message>
    <message>
        <source>Not saved: the session would be %1 MiB, more than the 16 MiB a session may have. Use fewer or shorter sentences, or weights that are referenced rather than embedded (a file over 8 MiB).</source>
        <translation>未保存：会话将有 %1 MiB，超过了会话允许的 16 MiB。请使用更少或更短的句子，或改用以路径引用而不是嵌入的权重（超过 8 MiB 的文件）。</translation>
    </message>
    <message>
        <source>Predictions</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>P&amp;redictions panel</source>
        <translation>预测面板(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Variant panel</source>
        <translation>变体面板(&amp;V)</translation>
    </message>
    <message>
        <source>Variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>The sentences saved last time were not restored: %1</source>
        <translation>上次保存的句子没有恢复：%1</translation>
    </message>
    <message>
        <source>Replace the bundle?</source>
        <translation>替换数据包？</translation>
    </message>
    <message>
        <source>“%1” holds an earlier Attention Lab bundle. Replace it with this one?</source>
        <translation>“%1”中是之前的 Attention Lab 数据包。要用这次的替换它吗？</translation>
    </message>
    <message>
        <source>Write into a new folder?</source>
        <translation>写入新文件夹？</translation>
    </message>
    <message>
        <source>“%1” holds other files, which stay as they are. Write the bundle into a new folder “%2” inside it?</source>
        <translation>“%1”中有其他文件，它们会保持原样。要把数据包写入其中的新文件夹“%2”吗？</translation>
    </message>
    <message>
        <source>There is no step “%1” in this trace; the window shows “%2” instead.</source>
        <translation>此轨迹中没有步骤“%1”；窗口改为显示“%2”。</translation>
    </message>
    <message>
        <source>User &amp;guide</source>
        <translation>用户指南(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;About Attention Lab</source>
        <translation>关于 Attention Lab(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Steps panel</source>
        <translation>步骤面板(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Inputs panel</source>
        <translation>输入面板(&amp;I)</translation>
    </message>
    <message>
        <source>User guide</source>
        <translation>用户指南</translation>
    </message>
    <message>
        <source>The user guide is not installed with this build. It is docs/guide.md in Attention Lab's sources, and /usr/share/doc/attnlab/guide.md once installed.</source>
        <translation>此版本没有安装用户指南。它在 Attention Lab 源代码的 docs/guide.md 中，安装后位于 /usr/share/doc/attnlab/guide.md。</translation>
    </message>
    <message>
        <source>No program is set to open %1; open it with a text editor or a Markdown viewer.</source>
        <translation>没有设置用于打开 %1 的程序；请用文本编辑器或 Markdown 阅读器打开它。</translation>
    </message>
    <message>
        <source>About Attention Lab</source>
        <translation>关于 Attention Lab</translation>
    </message>
    <message>
        <source>&lt;b&gt;Attention Lab %1&lt;/b&gt;&lt;br&gt;Multi-head attention, step by step: every operation of an encoder and a decoder with its shapes, formula, PyTorch line and heatmaps, checked against PyTorch.&lt;br&gt;&lt;br&gt;Qt %2, Eigen %3.%4.%5.</source>
        <translation>&lt;b&gt;Attention Lab %1&lt;/b&gt;&lt;br&gt;逐步演示多头注意力：编码器和解码器的每一步运算，连同形状、公式、PyTorch 代码和热力图，都与 PyTorch 核对过。&lt;br&gt;&lt;br&gt;Qt %2，Eigen %3.%4.%5。</translation>
    </message>
    <message>
        <source>the inputs cannot run as they are; the note under the knobs says why.</source>
        <translation>按现在的输入无法运行；旋钮下方的说明解释了原因。</translation>
    </message>
    <message>
        <source>Showing the last result (d_model %1, heads %2, layers %3): %4</source>
        <translation>显示的是上一次的结果（d_model %1，头数 %2，层数 %3）：%4</translation>
    </message>
    <message>
        <source>&amp;Gradient norms as CSV…</source>
        <translation>梯度范数导出为 CSV(&amp;G)…</translation>
    </message>
    <message>
        <source>Exporting the gradient norms</source>
        <translation>导出梯度范数</translation>
    </message>
    <message>
        <source>This result has no gradients: choose a loss under “gradients” first.</source>
        <translation>这个结果没有梯度：请先在“梯度”中选择一个损失。</translation>
    </message>
    <message>
        <source>Export gradient norms</source>
        <translation>导出梯度范数</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>&amp;Training panel</source>
        <translation>训练面板(&amp;T)</translation>
    </message>
    <message>
        <source>Not saved: the training run could not be written beside the session: %1</source>
        <translation>未保存：无法把训练过程写到会话文件旁边：%1</translation>
    </message>
    <message>
        <source>Session %1 opened, but not its training run: %2</source>
        <translation>已打开会话 %1，但未能打开其中的训练过程：%2</translation>
    </message>
    <message>
        <source>Open &amp;model folder…</source>
        <translation>打开模型文件夹(&amp;M)…</translation>
    </message>
    <message>
        <source>Open model folder</source>
        <translation>打开模型文件夹</translation>
    </message>
    <message>
        <source>Opening the model folder</source>
        <translation>打开模型文件夹</translation>
    </message>
    <message>
        <source>Model opened from %1</source>
        <translation>已从 %1 打开模型</translation>
    </message>
    <message>
        <source>Keeping layer %1's score tensors in full needs about %2 MiB, more than the memory budget of %3 MiB.</source>
        <translation>完整保留第 %1 层的分数张量需要约 %2 MiB，超过了 %3 MiB 的内存预算。</translation>
    </message>
    <message>
        <source>Tile every layer</source>
        <translation>每一层都分块计算</translation>
    </message>
    <message>
        <source>Keeping the score tensors of layers %1 in full needs about %2 MiB, more than the memory budget of %3 MiB.</source>
        <translation>完整保留第 %1 层的分数张量大约需要 %2 MiB，超过了 %3 MiB 的内存预算。</translation>
    </message>
    <message>
        <source>Explanations</source>
        <translation>解释</translation>
    </message>
    <message>
        <source>E&amp;xplanations panel</source>
        <translation>解释面板(&amp;X)</translation>
    </message>
    <message>
        <source>Logit lens</source>
        <translation>Logit 透镜</translation>
    </message>
    <message>
        <source> — heads knocked out: %1</source>
        <translation> — 已敲除的头：%1</translation>
    </message>
    <message>
        <source>Logit le&amp;ns panel</source>
        <translation>Logit 透镜面板(&amp;N)</translation>
    </message>
    <message>
        <source> — heads mean-ablated: %1</source>
        <translation> — 换成平均输出的头：%1</translation>
    </message>
    <message>
        <source>Bring head %1 back</source>
        <translation>恢复头 %1</translation>
    </message>
    <message>
        <source>Knock head %1 out</source>
        <translation>敲除头 %1</translation>
    </message>
    <message>
        <source>Knock head %1 out (not during an exercise)</source>
        <translation>敲除头 %1（练习进行中不可用）</translation>
    </message>
    <message>
        <source>Show every head's knock-out button</source>
        <translation>显示每个头的敲除按钮</translation>
    </message>
    <message>
        <source>Show only the overview of layer %1, head %2 again</source>
        <translation>第 %1 层第 %2 个头重新只显示概览</translation>
    </message>
    <message>
        <source>Show layer %1, head %2 cell by cell (its whole weights, beside the overview)</source>
        <translation>逐格显示第 %1 层第 %2 个头（完整权重，与概览并列）</translation>
    </message>
    <message>
        <source>Overviews only for layer %1, head %2 again (encoder, decoder and cross-attention)</source>
        <translation>第 %1 层第 %2 个头重新只显示概览（编码器、解码器和交叉注意力）</translation>
    </message>
    <message>
        <source>Show layer %1, head %2 cell by cell (encoder, decoder and cross-attention)</source>
        <translation>逐格显示第 %1 层第 %2 个头（编码器、解码器和交叉注意力）</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::MaskComparison</name>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>padding</source>
        <translation>填充</translation>
    </message>
    <message>
        <source>causal</source>
        <translation>因果</translation>
    </message>
    <message>
        <source>padding + causal</source>
        <translation>填充 + 因果</translation>
    </message>
    <message>
        <source>Hides nothing: every token, [PAD] included, may attend to every key.</source>
        <translation>不遮蔽任何内容：每个词元（包括 [PAD]）都可以关注所有键。</translation>
    </message>
    <message>
        <source>Hides the [PAD] keys (grey columns), so the filler that evens out the batch gets no weight.</source>
        <translation>遮蔽 [PAD] 键（灰色列），使用于补齐批次的填充不获得任何权重。</translation>
    </message>
    <message>
        <source>Hides every later key (the upper triangle), so a token sees only itself and what came before.</source>
        <translation>遮蔽所有后续的键（上三角部分），使每个词元只能看到自身及其之前的内容。</translation>
    </message>
    <message>
        <source>Hides both: later keys and [PAD] keys, as a decoder reading a padded batch does.</source>
        <translation>同时遮蔽后续的键和 [PAD] 键，就像解码器读取经过填充的批次时那样。</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Choose a step inside the model to compare the masks.</source>
        <translation>请选择模型内部的一个步骤来比较各种掩码。</translation>
    </message>
    <message>
        <source>computing the four masks…</source>
        <translation>正在计算四种掩码…</translation>
    </message>
    <message>
        <source>Could not compute the comparison: %1</source>
        <translation>无法完成比较计算：%1</translation>
    </message>
    <message>
        <source>This block has no attention weights.</source>
        <translation>此模块没有注意力权重。</translation>
    </message>
    <message>
        <source>%1 (current)</source>
        <translation>%1（当前）</translation>
    </message>
    <message>
        <source>%1 · head %2 · sentence %3: the same input under each mask</source>
        <translation>%1 · 头 %2 · 句子 %3：同一输入在各种掩码下的结果</translation>
    </message>
    <message>
        <source>In an encoder–decoder model the mask setting applies to the decoder's self-attention only: this block always hides the source's [PAD] keys, so its maps differ only through the layers before it.</source>
        <translation>在编码器–解码器模型中，掩码设置只作用于解码器的自注意力：此模块总是遮蔽源句子的 [PAD] 键，因此它的各张图之间的差异只来自其前面的各层。</translation>
    </message>
    <message>
        <source>These maps use the seeded weights and differ from the model on show (were its weights loaded from a file?).</source>
        <translation>这些图使用由随机种子生成的权重，与当前显示的模型不同（该模型的权重是否从文件加载？）。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::MaskEditor</name>
    <message>
        <source>Mask editor</source>
        <translation>掩码编辑器</translation>
    </message>
    <message>
        <source>rows: queries · columns: keys · click to toggle</source>
        <translation>行：查询 · 列：键 · 点击切换</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::ModelView</name>
    <message>
        <source>%1 layer %2</source>
        <translation>%1层 %2</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Sentence %1 · rows: attention blocks · columns: heads · click one to open it</source>
        <translation>句子 %1 · 行：注意力模块 · 列：头 · 点击任意一个即可打开</translation>
    </message>
    <message>
        <source>No model yet.</source>
        <translation>尚无模型。</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>weight %1 … %2, one scale for every thumbnail</source>
        <translation>权重 %1 … %2，所有缩略图使用同一标尺</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>被掩码</translation>
    </message>
    <message>
        <source>%1, head %2 — click to open it</source>
        <translation>%1，头 %2 —— 点击打开</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::NeuronView</name>
    <message>
        <source>q (“%1”)</source>
        <translation>q（“%1”）</translation>
    </message>
    <message>
        <source>q·k_j</source>
        <translation>q·k_j</translation>
    </message>
    <message>
        <source>÷ √Dh</source>
        <translation>÷ √Dh</translation>
    </message>
    <message>
        <source>key j</source>
        <translation>键 j</translation>
    </message>
    <message>
        <source>k_j (key)</source>
        <translation>k_j（键）</translation>
    </message>
    <message>
        <source>q ∘ k_j</source>
        <translation>q ∘ k_j</translation>
    </message>
    <message>
        <source>softmax weight</source>
        <translation>softmax 权重</translation>
    </message>
    <message>
        <source>cell d = q[d] × k_j[d]; the cells add up to q·k_j</source>
        <translation>单元格 d = q[d] × k_j[d]；所有单元格相加得到 q·k_j</translation>
    </message>
    <message>
        <source>%1 (masked: −∞)</source>
        <translation>%1（被掩码：−∞）</translation>
    </message>
    <message>
        <source>q[%1] = %2</source>
        <translation>q[%1] = %2</translation>
    </message>
    <message>
        <source>k_%1[%2] = %3</source>
        <translation>k_%1[%2] = %3</translation>
    </message>
    <message>
        <source>q[%1] × k_%2[%1] = %3 × %4 = %5</source>
        <translation>q[%1] × k_%2[%1] = %3 × %4 = %5</translation>
    </message>
    <message>
        <source>The query token whose row of scores is taken apart</source>
        <translation>要拆解其分数行的查询词元</translation>
    </message>
    <message>
        <source>Query:</source>
        <translation>查询：</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Choose a step inside the model to see how one query's scores are made.</source>
        <translation>请选择模型内部的一个步骤，查看单个查询的分数是如何得出的。</translation>
    </message>
    <message>
        <source>%1 · head %2 · sentence %3</source>
        <translation>%1 · 头 %2 · 句子 %3</translation>
    </message>
    <message>
        <source>weight_j = softmax_j( (q · k_j) / √Dh ),  Dh = %1,  √Dh = %2</source>
        <translation>weight_j = softmax_j( (q · k_j) / √Dh ),  Dh = %1,  √Dh = %2</translation>
    </message>
    <message>
        <source>The dot product adds up the element-wise products: a key whose vector points the same way as q scores high. Dividing by √Dh keeps scores from growing with the head size; softmax turns them into weights that sum to 1. Masked keys become −∞ before the softmax, so their weight is 0.</source>
        <translation>点积将逐元素乘积相加：向量方向与 q 一致的键得分较高。除以 √Dh 可防止分数随头的维度增大而变大；softmax 将分数转换为和为 1 的权重。被掩码的键在 softmax 之前被设为 −∞，因此其权重为 0。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::PredictionsPanel</name>
    <message>
        <source>Predictions need a trained model. Choose one under &lt;b&gt;Model&lt;/b&gt; in the input panel: its output head then turns the last layer's vectors into guesses, and this panel shows them.</source>
        <translation>预测需要一个训练过的模型。请在输入面板的&lt;b&gt;模型&lt;/b&gt;中选择一个：它的输出头会把最后一层的向量变成猜测，本面板会显示这些猜测。</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>Position:</source>
        <translation>位置：</translation>
    </message>
    <message>
        <source>%1.</source>
        <translation>%1.</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; — %2</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; — %2</translation>
    </message>
    <message>
        <source>Trained model</source>
        <translation>训练模型</translation>
    </message>
    <message>
        <source>each position guesses the next token</source>
        <translation>每个位置猜测下一个词元</translation>
    </message>
    <message>
        <source>each position gives the answer's token at that place</source>
        <translation>每个位置给出答案在该处的词元</translation>
    </message>
    <message>
        <source>Sentence %1</source>
        <translation>句子 %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Its top guess after each position: %1</source>
        <translation>每个位置之后它的首选猜测：%1</translation>
    </message>
    <message>
        <source>Its answer, position by position: %1</source>
        <translation>它逐个位置给出的答案：%1</translation>
    </message>
    <message>
        <source>After “%1” the model expects:</source>
        <translation>在“%1”之后，模型预计：</translation>
    </message>
    <message>
        <source>At position %1 of the answer the model expects:</source>
        <translation>在答案的位置 %1，模型预计：</translation>
    </message>
    <message>
        <source> (NaN)</source>
        <translation>（NaN）</translation>
    </message>
    <message>
        <source>(The model's note names its heads: it is hidden until the exercise is answered.)</source>
        <translation>（模型说明里写出了它的各个头，所以在练习答完之前先隐藏。）</translation>
    </message>
    <message>
        <source>each position guesses its own piece: type [MASK] to hide a word</source>
        <translation>每个位置猜测自身的片段：输入 [MASK] 来遮住一个词</translation>
    </message>
    <message>
        <source>Its guess at each position: %1</source>
        <translation>它在每个位置的猜测：%1</translation>
    </message>
    <message>
        <source>At position %1 (“%2”) the model expects:</source>
        <translation>在位置 %1（“%2”）模型预期：</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::PresenterMode</name>
    <message>
        <source>Presenter mode · ← → step · PgUp PgDn layer · Space play · F11 or Esc to leave</source>
        <translation>演示模式 · ← → 切换步骤 · PgUp PgDn 切换层 · Space 播放 · 按 F11 或 Esc 退出</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::RunComparison</name>
    <message>
        <source>The faulty run beside the correct one</source>
        <translation>错误运行与正确运行并排对比</translation>
    </message>
    <message>
        <source>&lt;b&gt;The planted bug:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;植入的错误：&lt;/b&gt;%1</translation>
    </message>
    <message>
        <source>Step:</source>
        <translation>步骤：</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>Faulty run</source>
        <translation>错误运行</translation>
    </message>
    <message>
        <source>Correct run</source>
        <translation>正确运行</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>shape %1</source>
        <translation>形状 %1</translation>
    </message>
    <message>
        <source>, row sums %1</source>
        <translation>，行和 %1</translation>
    </message>
    <message>
        <source>The correct run has no step %1: the bug added it.</source>
        <translation>正确运行中没有步骤 %1：它是由错误引入的。</translation>
    </message>
    <message>
        <source>The shapes differ.</source>
        <translation>形状不同。</translation>
    </message>
    <message>
        <source>Largest difference: %1</source>
        <translation>最大差异：%1</translation>
    </message>
    <message>
        <source>The faulty run has no step %1.</source>
        <translation>有错误的运行没有步骤 %1。</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Both sides as a PNG or SVG picture, or the shown step's numbers as CSV</source>
        <translation>把两边导出为 PNG 或 SVG 图片，或把所示步骤的数字导出为 CSV</translation>
    </message>
    <message>
        <source>Export the comparison</source>
        <translation>导出比较</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg);;CSV numbers (*.csv)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg);;CSV 数字 (*.csv)</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::SafeApplication</name>
    <message>
        <source>There was not enough memory for that. Try a smaller configuration or a lower memory budget.</source>
        <translation>内存不足，无法完成。请尝试更小的配置或更低的内存预算。</translation>
    </message>
    <message>
        <source>An unexpected error occurred.</source>
        <translation>发生了意外错误。</translation>
    </message>
    <message>
        <source>Attention Lab</source>
        <translation>Attention Lab</translation>
    </message>
    <message>
        <source>%1

The window keeps what it had; you can go on working.</source>
        <translation>%1

窗口保留了原有的内容；可以继续操作。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::SampleGallery</name>
    <message>
        <source>Sample lessons</source>
        <translation>示例课程</translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation>课程</translation>
    </message>
    <message>
        <source>Open lesson</source>
        <translation>打开课程</translation>
    </message>
    <message>
        <source>No lessons found</source>
        <translation>没有找到课程</translation>
    </message>
    <message>
        <source>This build has no lessons embedded (sample_inputs/lessons).</source>
        <translation>这个版本没有内置课程（sample_inputs/lessons）。</translation>
    </message>
    <message>
        <source>(no preview)</source>
        <translation>（无预览）</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::ScalingTable</name>
    <message>
        <source>no scaling</source>
        <translation>不缩放</translation>
    </message>
    <message>
        <source>The √d experiment: the same input, the scores divided three ways</source>
        <translation>√d 实验：同样的输入，分数用三种方式相除</translation>
    </message>
    <message>
        <source>saturated rows</source>
        <translation>饱和的行</translation>
    </message>
    <message>
        <source>‖∂L/∂scores‖</source>
        <translation>‖∂L/∂scores‖</translation>
    </message>
    <message>
        <source>‖∂L/∂Q‖</source>
        <translation>‖∂L/∂Q‖</translation>
    </message>
    <message>
        <source>‖∂L/∂K‖</source>
        <translation>‖∂L/∂K‖</translation>
    </message>
    <message>
        <source>The experiment needs an attention block's weights: choose a step inside one.</source>
        <translation>这个实验需要一个注意力块的权重：请选择其中的一个步骤。</translation>
    </message>
    <message>
        <source>Too long for three more runs here (%1 scores a run): try a shorter text.</source>
        <translation>文本太长，无法在这里再运行三次（每次 %1 个分数）：请试试更短的文本。</translation>
    </message>
    <message>
        <source>computing three runs…</source>
        <translation>正在计算三次运行……</translation>
    </message>
    <message>
        <source>No gradient reaches this block at all (a post-norm model under the sum loss: the trap), so the experiment shows nothing here. Choose the pre-norm model.</source>
        <translation>完全没有梯度到达这个块（post-norm 模型加上 sum 损失：正是那个陷阱），所以这个实验在这里看不出任何东西。请选择 pre-norm 模型。</translation>
    </message>
    <message>
        <source>rows with ~no gradient</source>
        <translation>几乎没有梯度的行</translation>
    </message>
    <message>
        <source>Query rows whose gradient is below 1/100 of the median row's</source>
        <translation>梯度不到中位数那一行的 1/100 的查询行</translation>
    </message>
    <message>
        <source>Without the scaling %1 of the rows saturate (the model: %2) and %3 of them get almost no gradient (the model: %4): a saturated softmax passes almost nothing back, so those queries and keys stop learning. The total ‖∂L/∂Q‖ can still grow: the other rows are no longer divided by √d_head.</source>
        <translation>不缩放时有 %1 的行饱和（模型本身：%2），其中 %3 的行几乎得不到梯度（模型本身：%4）：饱和的 softmax 几乎不往回传梯度，这些查询和键就不再学习。‖∂L/∂Q‖ 的总量仍可能变大：其余的行不再除以 √d_head。</translation>
    </message>
    <message>
        <source>Here the dot products are still small (d_head %1): without the scaling only %2 of the rows saturate and %3 get almost no gradient. The starving needs wide heads, whose unscaled scores grow with √d_head: try d_model 512 with 8 heads (d_head 64).</source>
        <translation>这里的点积还很小（d_head 为 %1）：不缩放时只有 %2 的行饱和，%3 的行几乎得不到梯度。梯度“饿死”需要宽的头，它们未缩放的分数随 √d_head 增长：试试 d_model 512、8 个头（d_head 64）。</translation>
    </message>
    <message>
        <source>÷ √d_head
= %1
(the model)</source>
        <translation>÷ √d_head
= %1
（模型本身）</translation>
    </message>
    <message>
        <source>÷ √d_model
= %1</source>
        <translation>÷ √d_model
= %1</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::ShapeDiagram</name>
    <message>
        <source> and </source>
        <translation> 和 </translation>
    </message>
    <message>
        <source>%1: swap %2 — no data moves, only the strides change</source>
        <translation>%1：交换 %2——数据不移动，只改变步长</translation>
    </message>
    <message>
        <source>contiguous(): already in C order — nothing copied</source>
        <translation>contiguous()：已经是 C 顺序——无需复制</translation>
    </message>
    <message>
        <source>contiguous(): copy into C order so that view() can work</source>
        <translation>contiguous()：复制为 C 顺序，以便 view() 能够执行</translation>
    </message>
    <message>
        <source>view: split %1 into %2 — same storage, no copy</source>
        <translation>view：将 %1 拆分为 %2——同一块存储，不复制</translation>
    </message>
    <message>
        <source>view: join %1 into %2 — same storage, no copy</source>
        <translation>view：将 %1 合并为 %2——同一块存储，不复制</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>strides (%1)</source>
        <translation>步长 (%1)</translation>
    </message>
    <message>
        <source>shape ?</source>
        <translation>形状 ?</translation>
    </message>
    <message>
        <source>strides ?</source>
        <translation>步长 ?</translation>
    </message>
    <message>
        <source>(hidden: predict the result in the exercise panel)</source>
        <translation>（已隐藏：请在练习面板中预测结果）</translation>
    </message>
    <message>
        <source>contiguous?</source>
        <translation>是否连续？</translation>
    </message>
    <message>
        <source>contiguous</source>
        <translation>连续</translation>
    </message>
    <message>
        <source>not contiguous</source>
        <translation>不连续</translation>
    </message>
    <message>
        <source>%1 (%2) %3 %4</source>
        <translation>%1 (%2) %3 %4</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::StepNavigator</name>
    <message>
        <source>◀ Previous</source>
        <translation>◀ 上一步</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>下一步 ▶</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Previous step (←)</source>
        <translation>上一步（←）</translation>
    </message>
    <message>
        <source>Next step (→)</source>
        <translation>下一步（→）</translation>
    </message>
    <message>
        <source>Play / pause (Space)</source>
        <translation>播放 / 暂停（Space）</translation>
    </message>
    <message>
        <source>slow (3 s)</source>
        <translation>慢（3 s）</translation>
    </message>
    <message>
        <source>normal (1.5 s)</source>
        <translation>正常（1.5 s）</translation>
    </message>
    <message>
        <source>fast (0.5 s)</source>
        <translation>快（0.5 s）</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>token %1 · %2</source>
        <translation>词元 %1 · %2</translation>
    </message>
    <message>
        <source>block %1 · %2</source>
        <translation>块 %1 · %2</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Backward (gradients)</source>
        <translation>反向传播（梯度）</translation>
    </message>
    <message>
        <source>∂L/∂ every step and parameter, in the order the gradient reaches them</source>
        <translation>每一步和每个参数的 ∂L/∂，按梯度到达它们的顺序排列</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::StepPanel</name>
    <message>
        <source>Views of the step</source>
        <translation>步骤的视图</translation>
    </message>
    <message>
        <source>View</source>
        <translation>视图</translation>
    </message>
    <message>
        <source>Values</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>Lines</source>
        <translation>连线</translation>
    </message>
    <message>
        <source>Model view</source>
        <translation>模型视图</translation>
    </message>
    <message>
        <source>Neuron view</source>
        <translation>神经元视图</translation>
    </message>
    <message>
        <source>Mask comparison</source>
        <translation>掩码对比</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>This step's shape is the exercise: its values, code line and shape are hidden until you answer in the exercise panel.</source>
        <translation>本步骤的形状就是练习题：在练习面板中作答之前，其数值、代码行和形状都会隐藏。</translation>
    </message>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>Step id: %1</source>
        <translation>步骤 ID：%1</translation>
    </message>
    <message>
        <source>(formula hidden: it names the axes)</source>
        <translation>（公式已隐藏：它会透露各个轴）</translation>
    </message>
    <message>
        <source># hidden until you answer</source>
        <translation># 作答后显示</translation>
    </message>
    <message>
        <source>What this step computes is the question.</source>
        <translation>本步骤计算的内容就是题目。</translation>
    </message>
    <message>
        <source>(The sentence about the sizes is hidden: it would give the exercise away.)</source>
        <translation>（关于尺寸的说明已隐藏：它会泄露练习答案。）</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Computed in %1 ms on %2</source>
        <translation>在 %2 上计算用时 %1 ms</translation>
    </message>
    <message>
        <source>Source sentence:</source>
        <translation>源句子：</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Show the explanation, formula, code and change in full, the step id and the shape diagram</source>
        <translation>完整显示说明、公式、代码和变化，以及步骤编号和形状图</translation>
    </message>
    <message>
        <source>Measuring what changed in %1 numbers…</source>
        <translation>正在统计 %1 个数值的变化…</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>梯度</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::TensorView</name>
    <message>
        <source>query tokens</source>
        <translation>查询词元</translation>
    </message>
    <message>
        <source>key tokens</source>
        <translation>键词元</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>model dimensions (D = %1)</source>
        <translation>模型维度（D = %1）</translation>
    </message>
    <message>
        <source>head dimensions (Dh = %1)</source>
        <translation>头维度（Dh = %1）</translation>
    </message>
    <message>
        <source>hidden units (F = %1)</source>
        <translation>隐藏单元（F = %1）</translation>
    </message>
    <message>
        <source>vocabulary entries (V = %1)</source>
        <translation>词表条目（V = %1）</translation>
    </message>
    <message>
        <source>heads (H = %1)</source>
        <translation>头（H = %1）</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>&amp;Head:</source>
        <translation>头(&amp;H)：</translation>
    </message>
    <message>
        <source>Which attention head to show</source>
        <translation>要显示的注意力头</translation>
    </message>
    <message>
        <source>&amp;Show as:</source>
        <translation>显示为(&amp;S)：</translation>
    </message>
    <message>
        <source>Colour map</source>
        <translation>色图</translation>
    </message>
    <message>
        <source>Table</source>
        <translation>表格</translation>
    </message>
    <message>
        <source>No step selected.</source>
        <translation>未选择步骤。</translation>
    </message>
    <message>
        <source>Sentence %1</source>
        <translation>句子 %1</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>The whole tensor</source>
        <translation>整个张量</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>rows = %1, columns = %2</source>
        <translation>行 = %1，列 = %2</translation>
    </message>
    <message>
        <source>one row of %1</source>
        <translation>一行（%1）</translation>
    </message>
    <message>
        <source>%1, %2 × %3 values: %4.</source>
        <translation>%1，%2 × %3 个值：%4。</translation>
    </message>
    <message>
        <source>The table shows only the first %1 × %2 cells; the colour map shows them all.</source>
        <translation>表格只显示前 %1 × %2 个单元格；色图显示全部单元格。</translation>
    </message>
    <message>
        <source>[%1, %2] %3 × %4 = %5</source>
        <translation>[%1, %2] %3 × %4 = %5</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::TokenChips</name>
    <message>
        <source>%1:</source>
        <translation>%1:</translation>
    </message>
    <message>
        <source>… and %1 more [PAD]</source>
        <translation>……另有 %1 个 [PAD]</translation>
    </message>
    <message>
        <source>… and %1 more tokens, %2 of them [PAD]</source>
        <translation>……另有 %1 个词元，其中 %2 个是 [PAD]</translation>
    </message>
    <message>
        <source>… and 1 more token</source>
        <translation>……另有 1 个词元</translation>
    </message>
    <message>
        <source>… and %1 more tokens</source>
        <translation>……另有 %1 个词元</translation>
    </message>
    <message>
        <source>(empty)</source>
        <translation>（空）</translation>
    </message>
    <message>
        <source>… and %1 more sentences</source>
        <translation>……另有 %1 个句子</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::TrainingCurves</name>
    <message>
        <source>Loss and held-out accuracy</source>
        <translation>损失与留出集准确率</translation>
    </message>
    <message>
        <source>What the heads do (held out)</source>
        <translation>各个头在做什么（留出集）</translation>
    </message>
    <message>
        <source>training step</source>
        <translation>训练步</translation>
    </message>
    <message>
        <source>loss (nats)</source>
        <translation>损失（奈特）</translation>
    </message>
    <message>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <source>mean attention weight</source>
        <translation>平均注意力权重</translation>
    </message>
    <message>
        <source>training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>held-out loss</source>
        <translation>留出集损失</translation>
    </message>
    <message>
        <source>held-out accuracy</source>
        <translation>留出集准确率</translation>
    </message>
    <message>
        <source>layer %1: best previous-token head</source>
        <translation>第 %1 层：最好的前一词元头</translation>
    </message>
    <message>
        <source>best induction head (layers 1+)</source>
        <translation>最好的归纳头（第 1 层起）</translation>
    </message>
    <message>
        <source>phase change (step %1)</source>
        <translation>相变（第 %1 步）</translation>
    </message>
    <message>
        <source>shown: step %1</source>
        <translation>显示中：第 %1 步</translation>
    </message>
    <message>
        <source>Choose a task and press Start: the curves grow as the model learns.</source>
        <translation>选一个任务，按“开始”：模型学习时曲线随之生长。</translation>
    </message>
    <message>
        <source>Step %1: held-out loss %2, accuracy %3 %.</source>
        <translation>第 %1 步：留出集损失 %2，准确率 %3 %。</translation>
    </message>
    <message>
        <source>Best previous-token head %1.</source>
        <translation>最好的前一词元头 %1。</translation>
    </message>
    <message>
        <source>Best induction head %1.</source>
        <translation>最好的归纳头 %1。</translation>
    </message>
    <message>
        <source>The induction head appeared at step %1.</source>
        <translation>归纳头在第 %1 步出现。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::TrainingPanel</name>
    <message>
        <source>Induction: repeat what followed before</source>
        <translation>归纳：重复之前跟在后面的内容</translation>
    </message>
    <message>
        <source>Copy digits</source>
        <translation>复制数字</translation>
    </message>
    <message>
        <source>Reverse digits</source>
        <translation>倒转数字</translation>
    </message>
    <message>
        <source>Sort digits</source>
        <translation>数字排序</translation>
    </message>
    <message>
        <source>Brackets: balanced so far?</source>
        <translation>括号：到此为止是否配对？</translation>
    </message>
    <message>
        <source>Previous token</source>
        <translation>前一个词元</translation>
    </message>
    <message>
        <source>Next word of a text file</source>
        <translation>文本文件的下一个词</translation>
    </message>
    <message>
        <source>Task, model and optimiser</source>
        <translation>任务、模型与优化器</translation>
    </message>
    <message>
        <source>Task, model and optimiser (click to change)</source>
        <translation>任务、模型与优化器（点击修改）</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>单步</translation>
    </message>
    <message>
        <source>One training step: a batch forward, its backward pass, one update</source>
        <translation>一个训练步：一批数据的前向、它的反向传播、一次更新</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>A new run from fresh weights with the knobs as they are</source>
        <translation>按当前设置，从新的权重开始一次新的训练</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Walk through the snapshots from the start: the heads forming</source>
        <translation>从头逐一播放快照：看各个头如何形成</translation>
    </message>
    <message>
        <source>The model as it was at this step, in the whole window</source>
        <translation>整个窗口显示模型在这一步时的样子</translation>
    </message>
    <message>
        <source>Keep for comparison</source>
        <translation>保留以便比较</translation>
    </message>
    <message>
        <source>Draw this run's curves dashed beside the next run's: change a knob, Reset, Start</source>
        <translation>把这次训练的曲线以虚线画在下一次旁边：改一个设置，重置，开始</translation>
    </message>
    <message>
        <source>Save model…</source>
        <translation>保存模型…</translation>
    </message>
    <message>
        <source>Save the trained model</source>
        <translation>保存训练好的模型</translation>
    </message>
    <message>
        <source>Weights files (*.safetensors)</source>
        <translation>权重文件 (*.safetensors)</translation>
    </message>
    <message>
        <source>Saved %1.</source>
        <translation>已保存 %1。</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Text file…</source>
        <translation>文本文件…</translation>
    </message>
    <message>
        <source>attention only (no feed-forward)</source>
        <translation>只有注意力（没有前馈层）</translation>
    </message>
    <message>
        <source>scale scores by 1/√d_head</source>
        <translation>分数乘以 1/√d_head</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>Norm</source>
        <translation>归一化</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>A text to learn from</source>
        <translation>用来学习的文本</translation>
    </message>
    <message>
        <source>Text (*.txt);;All files (*)</source>
        <translation>文本 (*.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>%1 layers, %2-norm%3</source>
        <translation>%1 层，%2-norm%3</translation>
    </message>
    <message>
        <source>, no √d</source>
        <translation>，不除以 √d</translation>
    </message>
    <message>
        <source>%1, step %2</source>
        <translation>%1，第 %2 步</translation>
    </message>
    <message>
        <source>This run trains without the √d scaling (a planted fault): the window computes with it, so this model is not shown there. Compare its curves instead.</source>
        <translation>这次训练没有按 √d 缩放（一个植入的错误）；窗口计算时总会缩放，所以这个模型不在窗口里显示。请比较它的曲线。</translation>
    </message>
    <message>
        <source>Train a model first.</source>
        <translation>请先训练一个模型。</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>step %1 of %2</source>
        <translation>第 %1 步，共 %2 步</translation>
    </message>
    <message>
        <source>this run</source>
        <translation>这次训练</translation>
    </message>
    <message>
        <source>Training: step %1 of %2, %3 ms per step.</source>
        <translation>训练中：第 %1 步，共 %2 步，每步 %3 毫秒。</translation>
    </message>
    <message>
        <source>Recorded induction run</source>
        <translation>录好的归纳训练</translation>
    </message>
    <message>
        <source>The default induction run, recorded: scrub through it without training (a slow PC)</source>
        <translation>录好的默认归纳训练：不必训练就能来回拖动查看（适合较慢的电脑）</translation>
    </message>
    <message>
        <source>Open recorded run…</source>
        <translation>打开录好的训练…</translation>
    </message>
    <message>
        <source>A folder written by attnlab train --snapshots</source>
        <translation>由 attnlab 的 train 子命令加 --snapshots 写出的文件夹</translation>
    </message>
    <message>
        <source>Export curves…</source>
        <translation>导出曲线…</translation>
    </message>
    <message>
        <source>The curves as PNG or SVG, or every logged number as CSV</source>
        <translation>曲线存为 PNG 或 SVG，或把记录的每个数存为 CSV</translation>
    </message>
    <message>
        <source>A recorded run (a folder with run.json)</source>
        <translation>录好的训练（含 run.json 的文件夹）</translation>
    </message>
    <message>
        <source>Export the training curves</source>
        <translation>导出训练曲线</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg);;CSV numbers (*.csv)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg);;CSV 数字 (*.csv)</translation>
    </message>
    <message>
        <source>no room in the temporary folder?</source>
        <translation>临时文件夹空间不够？</translation>
    </message>
    <message>
        <source>A recorded run: %1 steps of %2. Drag the timeline, or Play.</source>
        <translation>录好的训练：%2，共 %1 步。拖动时间轴，或按“播放”。</translation>
    </message>
    <message>
        <source>Compare heads…</source>
        <translation>比较注意力头…</translation>
    </message>
    <message>
        <source>The kept run's attention heatmaps beside this run's, at the timeline's step</source>
        <translation>在时间轴所指的步骤，把保留的运行的注意力热力图与本次运行的并排显示</translation>
    </message>
    <message>
        <source>1 layer, %1-norm%2</source>
        <translation>1 层，%1-norm%2</translation>
    </message>
    <message>
        <source>Keep a run for comparison first (Keep for comparison), then train another.</source>
        <translation>请先保留一次运行用于比较（“保留以便比较”），再训练另一次。</translation>
    </message>
    <message>
        <source>This run's model has no example sentences to compare on.</source>
        <translation>本次运行的模型没有可用于比较的示例句子。</translation>
    </message>
    <message>
        <source>Compare heads: the kept run beside this one</source>
        <translation>比较注意力头：保留的运行与本次运行并排</translation>
    </message>
    <message>
        <source>Kept run (%1)</source>
        <translation>保留的运行（%1）</translation>
    </message>
    <message>
        <source>This run (%1)</source>
        <translation>本次运行（%1）</translation>
    </message>
    <message>
        <source>The kept run has no step %1: it has fewer layers.</source>
        <translation>保留的运行没有步骤 %1：它的层数较少。</translation>
    </message>
    <message>
        <source>This run has no step %1: it has fewer layers.</source>
        <translation>本次运行没有步骤 %1：它的层数较少。</translation>
    </message>
    <message>
        <source>the run kept for comparison: %1</source>
        <translation>保留用于比较的那次训练：%1</translation>
    </message>
    <message>
        <source>the window's sentences</source>
        <translation>窗口里的句子</translation>
    </message>
    <message>
        <source>this model's example sentences (the window's have words it does not know)</source>
        <translation>这个模型的示例句子（窗口里的句子有它不认识的词）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Left:&lt;/b&gt; the kept run (%1) at step %2. &lt;b&gt;Right:&lt;/b&gt; this run (%3) at step %4. The same sentences (%5), one colour scale for both sides.</source>
        <translation>&lt;b&gt;左：&lt;/b&gt;保留的运行（%1），第 %2 步。&lt;b&gt;右：&lt;/b&gt;本次运行（%3），第 %4 步。两边使用相同的句子（%5）和同一个颜色刻度。</translation>
    </message>
    <message>
        <source>This run cannot go on: %1</source>
        <translation>这次训练不能接着进行：%1</translation>
    </message>
    <message>
        <source>Go on training this run from step %1, as if it had never stopped</source>
        <translation>从第 %1 步接着训练，就像从未中断过一样</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::VariantChooser</name>
    <message>
        <source>The encoder layer whose self-attention the variant runs beside.</source>
        <translation>变体在其自注意力旁运行的编码器层。</translation>
    </message>
    <message>
        <source>in layer:</source>
        <translation>所在层：</translation>
    </message>
    <message>
        <source>Linformer cannot keep a causal mask: its projection blends every position's key and value into a few rows, the later tokens included, so a token would read the future. Choose the mask "padding" or "none", or another variant. Nothing is recomputed until then.</source>
        <translation>Linformer 无法保留因果掩码：它的投影会把每个位置（包括后面的词元）的键和值混合成几行，因此一个词元会读到未来。请选择掩码“padding”或“none”，或者换一个变体。在此之前不会重新计算。</translation>
    </message>
</context>
<context>
    <name>attnlab::ui::VariantPanel</name>
    <message>
        <source>Sentence:</source>
        <translation>句子：</translation>
    </message>
    <message>
        <source>Head:</source>
        <translation>头：</translation>
    </message>
    <message>
        <source>Walk through its steps</source>
        <translation>逐步查看它的步骤</translation>
    </message>
    <message>
        <source>Show the variant's first step in the step navigator</source>
        <translation>在步骤导航中显示变体的第一步</translation>
    </message>
    <message>
        <source>%1 ×</source>
        <comment>a ratio, e.g. 0.42 ×</comment>
        <translation>%1 ×</translation>
    </message>
    <message>
        <source>Choose an attention variant under “attention variant” in the input panel: it runs beside one encoder block on that block's own queries, keys and values, and this panel compares it with full attention.</source>
        <translation>在输入面板的“注意力变体”中选择一种注意力变体：它在一个编码器模块旁运行，使用该模块自己的查询、键和值，本面板把它与完整注意力进行比较。</translation>
    </message>
    <message>
        <source>A planted bug is on: the variants run on the correct model only. Answer or leave the exercise to compare a variant again.</source>
        <translation>当前埋有错误：变体只在正确的模型上运行。回答或退出练习后，即可再次比较变体。</translation>
    </message>
    <message>
        <source>This result has no variant steps.</source>
        <translation>此结果没有变体步骤。</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; beside the self-attention of layer %2</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;，在层 %2 的自注意力旁</translation>
    </message>
    <message>
        <source>Difference from full causal attention over %1 tokens: max |Δ| = %2, relative error %3.</source>
        <translation>在 %1 个词元上与完整因果注意力的差异：max |Δ| = %2，相对误差 %3。</translation>
    </message>
    <message>
        <source>Difference from full attention over %1 tokens: max |Δ| = %2, relative error %3.</source>
        <translation>在 %1 个词元上与完整注意力的差异：max |Δ| = %2，相对误差 %3。</translation>
    </message>
    <message>
        <source>decoding without a cache</source>
        <translation>不用缓存的解码</translation>
    </message>
    <message>
        <source>full attention</source>
        <translation>完整注意力</translation>
    </message>
    <message>
        <source>this variant</source>
        <translation>本变体</translation>
    </message>
    <message>
        <source>ratio</source>
        <translation>比值</translation>
    </message>
    <message>
        <source>FLOPs</source>
        <translation>FLOPs</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Check: decoding with the cache is equal to full causal attention within 1e-5 (largest difference %1).</source>
        <translation>检查：用缓存解码与完整因果注意力在 1e-5 以内相等（最大差异 %1）。</translation>
    </message>
    <message>
        <source>Check failed: decoding with the cache differs from full causal attention by %1.</source>
        <translation>检查未通过：用缓存解码与完整因果注意力相差 %1。</translation>
    </message>
    <message>
        <source>Check: the tiled online softmax is equal to full attention within 1e-5 (largest difference %1).</source>
        <translation>检查：分块在线 softmax 与完整注意力在 1e-5 以内相等（最大差异 %1）。</translation>
    </message>
    <message>
        <source>Check failed: the tiled online softmax differs from full attention by %1.</source>
        <translation>检查未通过：分块在线 softmax 与完整注意力相差 %1。</translation>
    </message>
    <message>
        <source>Full attention, head %1</source>
        <translation>完整注意力，头 %1</translation>
    </message>
    <message>
        <source>%1: the weights it amounts to</source>
        <translation>%1：等效的权重</translation>
    </message>
    <message>
        <source>%1: its weights</source>
        <translation>%1：它的权重</translation>
    </message>
    <message>
        <source>Difference from full attention per token (sentence %1)</source>
        <translation>每个词元与完整注意力的差异（句子 %1）</translation>
    </message>
    <message>
        <source>max |Δ|</source>
        <translation>max |Δ|</translation>
    </message>
    <message>
        <source>The KV cache computes full causal attention, one new token at a time: the right map is its weights, assembled row by row from the cache, so the future (above the diagonal) is never read. The left map is this block's own attention, under the model's mask.</source>
        <translation>KV 缓存一次处理一个新词元，算出的是完整的因果注意力：右图是它的权重，由缓存逐行拼成，因此从不读取未来（对角线以上）。左图是这个块自己的注意力，使用模型的掩码。</translation>
    </message>
    <message>
        <source>Difference from full causal attention per token (sentence %1)</source>
        <translation>每个词元与完整因果注意力的差异（句子 %1）</translation>
    </message>
    <message>
        <source>The tiled path for long texts keeps no (S, S) attention to compare with, so no variant runs beside it. Choose “full (every score)” under attention to see the variant.</source>
        <translation>用于长文本的分块路径不保存可供比较的 (S, S) 注意力，因此不会在其旁运行变体。在“注意力”中选择“完整（保留全部分数）”即可看到变体。</translation>
    </message>
    <message>
        <source>The tiled walk-through computes exactly full attention without ever holding the (S, S) matrix, so there is no other map to show: the left map is what it reproduces.</source>
        <translation>分块演示精确地计算完整注意力，而从不保存 (S, S) 矩阵，因此没有另一张图可显示：左图就是它重现的结果。</translation>
    </message>
    <message>
        <source>Check: the O(S) form is equal to the quadratic form within 1e-5 (largest difference %1).</source>
        <translation>检查：O(S) 形式与二次形式在 1e-5 以内相等（最大差异 %1）。</translation>
    </message>
    <message>
        <source>Check failed: the O(S) form and the quadratic form differ by %1.</source>
        <translation>检查未通过：O(S) 形式与二次形式相差 %1。</translation>
    </message>
</context>
</TS>