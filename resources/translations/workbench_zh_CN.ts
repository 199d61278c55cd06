<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AddServerDialog</name>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="49"/>
        <source>Add a server</source>
        <translation>添加服务器</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="54"/>
        <source>ssh://user@gpu-server.example.org</source>
        <translation>ssh://用户名@服务器地址</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="56"/>
        <source>cpu, or the devices to use, such as gpu:0 or gpu:0,1 or npu:0</source>
        <translation>cpu，或要使用的设备，例如 gpu:0、gpu:0,1 或 npu:0</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="58"/>
        <source>workbench-server in your home folder there</source>
        <translation>服务器上您主目录下的 workbench-server</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="61"/>
        <source>Workbench logs in with your SSH key, as the ssh command does; it asks for no password and stores none.</source>
        <translation>Workbench 像 ssh 命令一样用您的 SSH 密钥登录，不询问也不保存任何密码。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="65"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="66"/>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="67"/>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="68"/>
        <source>Work folder</source>
        <translation>工作文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="69"/>
        <source>Python there</source>
        <translation>服务器上的 Python</translation>
    </message>
</context>
<context>
    <name>ApplyFileWidget</name>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="43"/>
        <source>Choose a file…</source>
        <translation>选择文件…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="92"/>
        <source>Pick a file with new rows (the same columns as your data); the model adds its prediction to every row.</source>
        <translation>选择一个包含新数据行的文件（列与您的数据相同）；模型会为每一行加上预测结果。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="48"/>
        <source>One probability column per label</source>
        <translation>每个标签一列概率</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="49"/>
        <source>Predict</source>
        <translation>预测</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="53"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="56"/>
        <source>Save as…</source>
        <translation>另存为…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="103"/>
        <source>File to predict</source>
        <translation>要预测的文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="134"/>
        <source>Predicting {0} in a separate process…</source>
        <translation>正在独立进程中预测 {0}…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="138"/>
        <source>Predicting {0}</source>
        <translation>正在预测 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="163"/>
        <source>Predicting: {0} of {1} rows</source>
        <translation>正在预测：第 {0} 行，共 {1} 行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="168"/>
        <source>Cancelled; nothing was written.</source>
        <translation>已取消；未写入任何文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="175"/>
        <source>Prediction failed</source>
        <translation>预测失败</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="180"/>
        <source>The prediction ended without a result.</source>
        <translation>预测结束，但没有返回结果。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="184"/>
        <source>{0} rows predicted; the result is in {1}.</source>
        <translation>已预测 {0} 行；结果保存在 {1}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="185"/>
        <source>Reading the result</source>
        <translation>正在读取结果</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="206"/>
        <source>Save the predictions</source>
        <translation>保存预测结果</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="207"/>
        <source>CSV (*.csv);;Excel (*.xlsx)</source>
        <translation>CSV（*.csv）;;Excel（*.xlsx）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="213"/>
        <source>Saving the predictions</source>
        <translation>正在保存预测结果</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/apply_file.py" line="214"/>
        <source>Saved to {0}.</source>
        <translation>已保存到 {0}。</translation>
    </message>
</context>
<context>
    <name>BackgroundProgressWidget</name>
    <message>
        <location filename="../../workbench/gui/background.py" line="274"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/background.py" line="318"/>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
</context>
<context>
    <name>BackgroundWork</name>
    <message>
        <location filename="../../workbench/gui/background.py" line="183"/>
        <source>The computer ran out of memory. Close other programs or use a smaller file, then try again.</source>
        <translation>电脑内存不足。请关闭其他程序或使用更小的文件，然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/background.py" line="187"/>
        <source>Something unexpected went wrong: {0}: {1}. Try again; if it happens again, send the details below to your support contact.</source>
        <translation>发生了意外错误：{0}：{1}。请重试；如果再次出现，请把下面的详细信息发给技术支持。</translation>
    </message>
</context>
<context>
    <name>BetterAnswerDialog</name>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="133"/>
        <source>Write a better answer</source>
        <translation>写一个更好的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="137"/>
        <source>Question</source>
        <translation>问题</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="140"/>
        <source>The model&apos;s answer</source>
        <translation>模型的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="140"/>
        <source>Answer {0}</source>
        <translation>回答 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="143"/>
        <source>Start from this answer</source>
        <translation>以这个回答为起点</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="148"/>
        <source>Your answer</source>
        <translation>您的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="150"/>
        <source>The answer the model should have given</source>
        <translation>模型本应给出的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="158"/>
        <source>Record my answer</source>
        <translation>记录我的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="185"/>
        <source>Your answer is the model&apos;s answer word for word: change it, or rate the answer good instead.</source>
        <translation>您的回答与模型的回答一字不差：请修改它，或者直接把这个回答评为好。</translation>
    </message>
</context>
<context>
    <name>CodeNamesDialog</name>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="27"/>
        <source>Name the codes</source>
        <translation>为代码命名</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="29"/>
        <source>Give each code the label name it stands for; leave a name empty to keep the code.</source>
        <translation>为每个代码填写它代表的标签名称；留空则保留代码本身。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="33"/>
        <source>Code</source>
        <translation>代码</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="33"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
</context>
<context>
    <name>ColumnStatsPanel</name>
    <message>
        <location filename="../../workbench/gui/pages/data/stats_panel.py" line="24"/>
        <source>Column</source>
        <translation>列</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/stats_panel.py" line="29"/>
        <location filename="../../workbench/gui/pages/data/stats_panel.py" line="40"/>
        <source>Import data to see its columns.</source>
        <translation>导入数据后即可查看各列。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/stats_panel.py" line="32"/>
        <source>Text length (characters)</source>
        <translation>文本长度（字符）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/stats_panel.py" line="33"/>
        <location filename="../../workbench/gui/pages/data/stats_panel.py" line="73"/>
        <source>Most frequent values</source>
        <translation>最常见的取值</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/stats_panel.py" line="61"/>
        <source>{0} rows · {1} missing or blank ({2:.1%}) · {3} distinct values · average length {4:.0f}, longest {5} characters</source>
        <translation>{0} 行 · {1} 个缺失或空白（{2:.1%}）· {3} 个不同取值 · 平均长度 {4:.0f}，最长 {5} 个字符</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/stats_panel.py" line="72"/>
        <source>Label distribution</source>
        <translation>标签分布</translation>
    </message>
</context>
<context>
    <name>CommandLineBox</name>
    <message>
        <location filename="../../workbench/gui/pages/data/command_line.py" line="93"/>
        <source>The same preparation as a command line (for a script or another computer):</source>
        <translation>用命令行完成同样的准备（可用于脚本或另一台电脑）：</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/command_line.py" line="118"/>
        <source>(import a file first)</source>
        <translation>（请先导入文件）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/command_line.py" line="121"/>
        <source>Your changes to the cleaning steps are not on it (the command uses the template&apos;s steps, or a recipe file given with --recipe).</source>
        <translation>命令行不包含您对清洗步骤的修改（命令使用模板的清洗步骤，或用 --recipe 指定的清洗方案文件）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/command_line.py" line="123"/>
        <source>The label spellings this project kept from its earlier preparation are not on it; preparing into this project again keeps them.</source>
        <translation>命令行中没有本项目上次准备时保留的标签写法；再次准备到本项目时会保留它们。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/command_line.py" line="125"/>
        <source>Labels or code names with a comma (or a renamed label with =) in them cannot be written on it.</source>
        <translation>含逗号的标签或代码名称（或含 = 的改名标签）无法写在命令行中。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/command_line.py" line="127"/>
        <source>The separator -- cannot be written on it; choose another one for the command line.</source>
        <translation>分隔符 -- 无法写进命令行；如需使用命令行，请换一个分隔符。</translation>
    </message>
</context>
<context>
    <name>CommandRunner</name>
    <message>
        <location filename="../../workbench/gui/commands.py" line="260"/>
        <source>This version of Workbench has no &apos;{0}&apos; command yet, so this step cannot run. Update Workbench.</source>
        <translation>当前版本的 Workbench 还没有“{0}”命令，这一步无法运行。请更新 Workbench。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="266"/>
        <source>The &apos;{0}&apos; command ended with status {1}. Its last output was:
{2}</source>
        <translation>“{0}”命令以状态 {1} 结束。最后的输出是：
{2}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="165"/>
        <source>The &apos;{0}&apos; step could not be started: {1}</source>
        <translation>“{0}”这一步无法启动：{1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="209"/>
        <source>importing</source>
        <translation>导入</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="210"/>
        <source>cleaning</source>
        <translation>清洗</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="211"/>
        <location filename="../../workbench/gui/commands.py" line="238"/>
        <source>the trained model answers</source>
        <translation>训练后的模型作答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="212"/>
        <source>the base model answers</source>
        <translation>基础模型作答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="213"/>
        <source>evaluating</source>
        <translation>评估</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="214"/>
        <source>the simple baseline answers</source>
        <translation>简单基线的答案</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="215"/>
        <source>judging the held-out pairs of answers</source>
        <translation>评判留出的回答对</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="216"/>
        <source>writing the report</source>
        <translation>正在写报告</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="217"/>
        <source>loading the model</source>
        <translation>加载模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="218"/>
        <source>saving the tokenizer</source>
        <translation>保存分词器</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="219"/>
        <source>merged weights</source>
        <translation>合并权重</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="220"/>
        <source>static model and its check</source>
        <translation>静态模型及其校验</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="221"/>
        <source>measuring speed</source>
        <translation>测量速度</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="222"/>
        <source>ONNX model and its check</source>
        <translation>ONNX 模型及其校验</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="223"/>
        <source>prediction script</source>
        <translation>预测脚本</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="224"/>
        <source>int8 model</source>
        <translation>int8 模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="225"/>
        <source>generation model and its check</source>
        <translation>生成模型及其校验</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="226"/>
        <source>GGUF file</source>
        <translation>GGUF 文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="227"/>
        <source>pinning the requirements</source>
        <translation>锁定依赖版本</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="228"/>
        <source>pinning the requirements and fetching the wheels</source>
        <translation>锁定依赖版本并下载安装包</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="229"/>
        <source>predicting</source>
        <translation>预测</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="230"/>
        <source>reading the file</source>
        <translation>读取文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="231"/>
        <source>converting the weights</source>
        <translation>转换权重</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="232"/>
        <source>writing the files</source>
        <translation>写入文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="233"/>
        <source>copying the files</source>
        <translation>复制文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="234"/>
        <source>installing the package</source>
        <translation>安装软件包</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="235"/>
        <source>assembling the model file</source>
        <translation>组装模型文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="236"/>
        <source>reading the texts</source>
        <translation>读取文本</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="237"/>
        <source>fitting models without each row</source>
        <translation>在不含各行的数据上拟合模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="239"/>
        <source>scoring each label</source>
        <translation>为每个标签打分</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="240"/>
        <source>finding nearly identical texts</source>
        <translation>查找几乎相同的文本</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="241"/>
        <source>the first answer to each question</source>
        <translation>每个问题的第一个回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="242"/>
        <source>the second answer to each question</source>
        <translation>每个问题的第二个回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/commands.py" line="243"/>
        <source>sampling again where both answers are the same</source>
        <translation>两个回答相同的问题重新采样</translation>
    </message>
</context>
<context>
    <name>CompareTab</name>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="254"/>
        <source>The model answers each question twice, by sampling; you choose the better answer with the keys 1 and 2, = for a tie, E to write a better one, S to skip. Tuning on your judgements (Train page) teaches the model what you prefer.</source>
        <translation>模型对每个问题采样作答两次；您用按键 1 和 2 选出更好的回答，= 表示平局，E 写一个更好的回答，S 跳过。根据您的评判调优（“训练”页）会让模型学到您的偏好。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="264"/>
        <source>validation rows</source>
        <translation>验证数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="265"/>
        <source>training rows</source>
        <translation>训练数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="266"/>
        <source>a file of questions (JSON lines)…</source>
        <translation>问题文件（JSONL）…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="268"/>
        <source>Sample the answers</source>
        <translation>采样回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="271"/>
        <source>Questions</source>
        <translation>问题数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="273"/>
        <source>from</source>
        <translation>来自</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="318"/>
        <source>A file of questions</source>
        <translation>问题文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="319"/>
        <source>JSON lines (*.jsonl *.json);;All files (*)</source>
        <translation>JSONL 文件 (*.jsonl *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="322"/>
        <source>Questions from {0}</source>
        <translation>问题来自 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="347"/>
        <source>Sampling two answers to {0} questions</source>
        <translation>正在为 {0} 个问题各采样两个回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="355"/>
        <source>Sampling two answers to your question</source>
        <translation>正在为您的问题采样两个回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="361"/>
        <source>The model writes two answers to each question in a separate process…</source>
        <translation>模型正在单独的进程中为每个问题写两个回答…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="366"/>
        <source>Sampling cancelled.</source>
        <translation>采样已取消。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="379"/>
        <source>There were no questions to sample.</source>
        <translation>没有可采样的问题。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="382"/>
        <source>Pairs of answers to judge: {0} (the same answer twice: {1}).</source>
        <translation>待评判的回答对：{0} 对（其中两个回答相同的：{1} 对）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="383"/>
        <source>Pairs of answers to judge: {0}.</source>
        <translation>待评判的回答对：{0} 对。</translation>
    </message>
</context>
<context>
    <name>CompareView</name>
    <message>
        <location filename="../../workbench/gui/pages/train/runs_list.py" line="180"/>
        <source>Training loss of the runs ticked in the list</source>
        <translation>列表中勾选的训练的损失曲线</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/runs_list.py" line="180"/>
        <source>step</source>
        <translation>步数</translation>
    </message>
</context>
<context>
    <name>CopyButton</name>
    <message>
        <location filename="../../workbench/gui/widgets/copy_button.py" line="47"/>
        <location filename="../../workbench/gui/widgets/copy_button.py" line="58"/>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/copy_button.py" line="53"/>
        <location filename="../../workbench/gui/widgets/copy_button.py" line="58"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
</context>
<context>
    <name>DataFiles</name>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="27"/>
        <source>Data files ({0})</source>
        <translation>数据文件 ({0})</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="28"/>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>DataPage</name>
    <message>
        <location filename="../../workbench/gui/pages/role_names.py" line="13"/>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/role_names.py" line="14"/>
        <source>Label</source>
        <translation>标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/role_names.py" line="15"/>
        <source>Instruction / question</source>
        <translation>指令 / 问题</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/role_names.py" line="16"/>
        <source>Extra input</source>
        <translation>补充输入</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/role_names.py" line="17"/>
        <source>Answer / output</source>
        <translation>回答 / 输出</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="27"/>
        <source>Choose the column that holds “{0}”: it is required.</source>
        <translation>请选择存放“{0}”的列：这一项是必需的。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="29"/>
        <source>The column “{0}” is not in this file; choose another one.</source>
        <translation>文件中没有“{0}”这一列，请选择其他列。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="31"/>
        <source>The column “{0}” is already used for “{1}”; each column can hold one thing only.</source>
        <translation>“{0}”列已用于“{1}”；每一列只能对应一项。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="34"/>
        <source>“{0}” takes one column only; choose one.</source>
        <translation>“{0}”只能对应一列，请选择其中一列。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="36"/>
        <source>This template has no field “{0}”.</source>
        <translation>此模板没有“{0}”这一项。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="38"/>
        <source>No rows are left after cleaning. Check the mapping and loosen the cleaning steps.</source>
        <translation>清洗后没有剩下任何行。请检查列映射并放宽清洗步骤。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="40"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="41"/>
        <source>The labels have fewer than two different values after cleaning (found: {0}). Classification needs at least two: check the column chosen for “{1}”.</source>
        <translation>清洗后标签只有不到两种取值（找到：{0}）。分类至少需要两种：请检查为“{1}”选择的列。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="44"/>
        <source>{0} rows have labels outside the template&apos;s set ({1}). Add them as other spellings in the step “{2}”, or drop rows with other labels.</source>
        <translation>有 {0} 行的标签不在模板的标签集中（{1}）。请在“{2}”步骤中把它们添加为其他写法，或删除带有其他标签的行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="48"/>
        <source>{0} of {1} rows have labels outside the template&apos;s set; your data has its own ({2}). On the Labels tab, use the labels found in your data.</source>
        <translation>{1} 行中有 {0} 行的标签不在模板的标签集中；你的数据有自己的标签（{2}）。请在“标签”页中使用数据中的标签。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="52"/>
        <source>Labels with fewer than {0} rows after cleaning were dropped: {1}. Lower the least rows per label on the Labels tab, or add rows.</source>
        <translation>清洗后少于 {0} 行的标签已删除：{1}。请在“标签”页调低每个标签的最少行数，或补充数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="55"/>
        <source>Every row&apos;s “{0}” is empty: choose the column that holds it.</source>
        <translation>所有行的“{0}”都为空：请选择存放它的列。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="57"/>
        <source>{0} rows have an empty “{1}”; the step “{2}” on it removes them.</source>
        <translation>有 {0} 行的“{1}”为空；对它使用“{2}”步骤可以删除这些行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="65"/>
        <source>“{0}” ← {1} + {2} (a pair of short texts beside a label of two values: read together, one a line)</source>
        <translation>“{0}” ← {1} + {2}（两列短文本配一个只有两个取值的标签，是成对的文本：合并读取，各占一行）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="69"/>
        <source>{0} distinct short values</source>
        <translation>{0} 个不同的简短取值</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="71"/>
        <source>free text, {0:.0f} characters on average</source>
        <translation>自由文本，平均 {0:.0f} 个字符</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="72"/>
        <source>“{0}” ← {1} ({2})</source>
        <translation>“{0}” ← {1}（{2}）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="79"/>
        <source>JSON (Alpaca)</source>
        <translation>JSON（Alpaca）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="80"/>
        <source>JSON (ShareGPT)</source>
        <translation>JSON（ShareGPT）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="81"/>
        <source>JSON (chat messages)</source>
        <translation>JSON（对话消息）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="82"/>
        <source>JSON (src/tgt)</source>
        <translation>JSON（src/tgt）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="93"/>
        <source>UTF-8 with BOM</source>
        <translation>UTF-8（带 BOM）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="112"/>
        <source>every text column</source>
        <translation>所有文本列</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="114"/>
        <source>Mask sensitive terms in {0}</source>
        <translation>为“{0}”中的敏感词打码</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="115"/>
        <source>Drop rows with sensitive terms in {0}</source>
        <translation>删除“{0}”中含敏感词的行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="116"/>
        <source>Flag sensitive terms in {0} for review</source>
        <translation>标记“{0}”中的敏感词供复核</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="121"/>
        <source>Filter rows by the length of {0}</source>
        <translation>按“{0}”的长度过滤</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/display.py" line="217"/>
        <source>In the marked changes: · a space, □ a full-width space, → a tab, ° a no-break space, ◇ a character of no width, ⏎ a line break, ⌧ a control character.</source>
        <translation>标出的改动中：· 表示空格，□ 表示全角空格，→ 表示制表符，° 表示不换行空格，◇ 表示零宽字符，⏎ 表示换行，⌧ 表示控制字符。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="128"/>
        <source>Columns</source>
        <translation>列统计</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="131"/>
        <location filename="../../workbench/gui/pages/data/page.py" line="541"/>
        <source>Cleaning</source>
        <translation>清洗</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="132"/>
        <source>Mapping</source>
        <translation>列对应</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="137"/>
        <source>Review</source>
        <translation>复核</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="138"/>
        <source>Split</source>
        <translation>划分</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="159"/>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="166"/>
        <source>Redo</source>
        <translation>重做</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="260"/>
        <source>Import a data file</source>
        <translation>导入数据文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="266"/>
        <source>No template chosen</source>
        <translation>未选择模板</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="267"/>
        <source>Choose a template first: it says which columns the data needs.</source>
        <translation>请先选择模板：模板决定了数据需要哪些列。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="340"/>
        <source>add {0}</source>
        <translation>添加“{0}”</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="342"/>
        <source>Reading {0}</source>
        <translation>正在读取 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="380"/>
        <source>Computing column statistics</source>
        <translation>正在计算列统计</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="409"/>
        <source>use the suggested columns</source>
        <translation>采用建议的列</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="528"/>
        <source>{0} rows imported → {1} rows after cleaning.</source>
        <translation>导入 {0} 行 → 清洗后 {1} 行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="539"/>
        <source>Cleaning failed</source>
        <translation>清洗失败</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="576"/>
        <source>The split is not valid</source>
        <translation>划分比例无效</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="603"/>
        <source>Prepared: {0} training, {1} validation, {2} test rows.</source>
        <translation>已准备好：训练 {0} 行，验证 {1} 行，测试 {2} 行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="607"/>
        <source>Preparing the data</source>
        <translation>正在准备数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="135"/>
        <source>Labels</source>
        <translation>标签集</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="141"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="628"/>
        <source>change the labels</source>
        <translation>修改标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="637"/>
        <source>edit the prompt</source>
        <translation>编辑提示词</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/page.py" line="666"/>
        <source>Saving the template</source>
        <translation>正在保存模板</translation>
    </message>
</context>
<context>
    <name>DataTablePanel</name>
    <message>
        <location filename="../../workbench/gui/pages/data/table_panel.py" line="31"/>
        <source>Imported data</source>
        <translation>导入的原始数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_panel.py" line="32"/>
        <source>After cleaning</source>
        <translation>清洗后的数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_panel.py" line="35"/>
        <source>Filter rows containing…</source>
        <translation>筛选包含以下内容的行…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_panel.py" line="43"/>
        <location filename="../../workbench/gui/pages/data/table_panel.py" line="104"/>
        <source>in all columns</source>
        <translation>所有列</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_panel.py" line="150"/>
        <source>{0} rows</source>
        <translation>{0} 行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_panel.py" line="152"/>
        <source>{0} of {1} rows</source>
        <translation>{1} 行中的 {0} 行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_panel.py" line="187"/>
        <source>Sorting and filtering</source>
        <translation>正在排序和筛选</translation>
    </message>
</context>
<context>
    <name>DataVersionBox</name>
    <message>
        <location filename="../../workbench/gui/pages/train/data_version.py" line="85"/>
        <source>Train again with the corrections</source>
        <translation>用更正后的数据重新训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/data_version.py" line="110"/>
        <source>New runs train on data version {0} ({1}).</source>
        <translation>新的训练使用数据版本 {0}（{1}）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/data_version.py" line="112"/>
        <source>New runs train on data version {0}, as prepared.</source>
        <translation>新的训练使用数据版本 {0}，即准备好时的数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/data_version.py" line="114"/>
        <source>Corrections not in the data yet: {0}. Start trains without them; Train again with the corrections writes them first.</source>
        <translation>尚未写入数据的更正：{0} 条。点击“开始”训练时不包含它们；“用更正后的数据重新训练”会先把它们写入数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/data_version.py" line="123"/>
        <source>Writes the corrected data as a new data version, then starts a run with the settings of run {0} on it.</source>
        <translation>把更正后的数据写成新的数据版本，然后用训练 {0} 的参数在其上开始一次新的训练。</translation>
    </message>
</context>
<context>
    <name>EnvironmentDialog</name>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="159"/>
        <source>Environment</source>
        <translation>运行环境</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="161"/>
        <location filename="../../workbench/gui/dialogs.py" line="183"/>
        <source>Checking the PaddlePaddle installation in a separate process…</source>
        <translation>正在独立进程中检查飞桨安装情况…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="169"/>
        <source>Check again</source>
        <translation>重新检查</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="216"/>
        <source>&lt;b&gt;PaddlePaddle cannot be loaded:&lt;/b&gt; {0}&lt;br&gt;Training, evaluation and export need it; reinstall the application or its dependencies.</source>
        <translation>&lt;b&gt;无法加载飞桨 PaddlePaddle：&lt;/b&gt;{0}&lt;br&gt;训练、评估和导出都需要它，请重新安装本软件或其依赖。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="220"/>
        <source>passed</source>
        <translation>通过</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="220"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="222"/>
        <source>&lt;b&gt;PaddlePaddle&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;飞桨 PaddlePaddle&lt;/b&gt; {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="223"/>
        <source>&lt;b&gt;PaddleFormers&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;PaddleFormers&lt;/b&gt; {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="224"/>
        <source>&lt;b&gt;Devices&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;设备&lt;/b&gt; {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="225"/>
        <source>&lt;b&gt;Installation check&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;安装自检&lt;/b&gt; {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="226"/>
        <source>&lt;b&gt;Python&lt;/b&gt; {0} on {1}</source>
        <translation>&lt;b&gt;Python&lt;/b&gt; {0}，系统 {1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="184"/>
        <source>Checking the installation</source>
        <translation>正在检查安装</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="194"/>
        <source>The check printed no report.</source>
        <translation>检查没有输出报告。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="199"/>
        <source>The check did not finish. The details below say why; reinstalling the application usually fixes it.</source>
        <translation>检查没有完成。下面的详细信息说明了原因；重新安装应用程序通常可以解决。</translation>
    </message>
</context>
<context>
    <name>ErrorText</name>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="27"/>
        <source>Warning: the identity key of server {0} ({1}) has changed since this computer last connected. Someone may be intercepting the connection, or the server was reinstalled. Nothing was sent. Ask the server&apos;s administrator for its key fingerprint; only if it matches, remove the old key with “{2}” and connect again.</source>
        <translation>警告：服务器 {0}（{1}）的身份密钥自本机上次连接以来已经改变。可能有人在截取连接，也可能服务器重装过。本次没有发送任何内容。请向服务器管理员索取密钥指纹；只有指纹一致时，才用“{2}”删除旧密钥后重新连接。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="32"/>
        <source>Server {0} ({1}) refused the login. Workbench asks for no password and stores none: it logs in with your SSH key. Add your public key to the server (for example with “{2}”) or load it into your SSH agent, then try again.</source>
        <translation>服务器 {0}（{1}）拒绝了登录。Workbench 不询问也不保存密码，而是用你的 SSH 密钥登录。请把你的公钥加到服务器上（例如用“{2}”），或把它载入 SSH 代理，然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="36"/>
        <source>The name of server {0} ({1}) cannot be found. Check the address, or your network.</source>
        <translation>找不到服务器 {0}（{1}）的主机名。请检查地址或网络。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="39"/>
        <source>Server {0} ({1}) cannot be reached: {2}. Check that it is on and that SSH runs on it, then try again; a run already started there goes on meanwhile.</source>
        <translation>无法连接服务器 {0}（{1}）：{2}。请确认它已开机并运行着 SSH，然后重试；已在那里开始的训练会继续进行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="42"/>
        <source>The connection to server {0} ({1}) failed: {2}</source>
        <translation>连接服务器 {0}（{1}）失败：{2}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="44"/>
        <source>The OpenSSH client (ssh) is not installed on this computer. Install it (Debian and Ubuntu: the package openssh-client; Windows: the optional feature “OpenSSH Client”).</source>
        <translation>本机没有安装 OpenSSH 客户端（ssh）。请安装它（Debian 和 Ubuntu：软件包 openssh-client；Windows：可选功能“OpenSSH 客户端”）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="47"/>
        <source>Server {0} did not answer within {1} s; try again.</source>
        <translation>服务器 {0} 在 {1} 秒内没有响应，请重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="49"/>
        <source>On server {0} the command failed: {1}</source>
        <translation>服务器 {0} 上的命令失败：{1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="51"/>
        <source>The check on server {0} failed: {1}</source>
        <translation>检查服务器 {0} 失败：{1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="53"/>
        <source>This run needs about {1} GB of disk on server {0} for its checkpoints and weights, and its work folder {2} has {3} GB free. Free some space there, or keep fewer checkpoints (Checkpoints kept, now {4}), then start again.</source>
        <translation>这次训练在服务器 {0} 上约需 {1} GB 磁盘空间存放检查点和权重，而其工作文件夹 {2} 只剩 {3} GB。请在那里腾出空间，或少保留一些检查点（“保留的检查点数”，当前为 {4}），然后重新开始。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="57"/>
        <source>Workbench is not installed for {0} on the server. Install it there with “{1}”; “workbench targets wheelhouse DIR” on this computer writes that constraints file, and every wheel for a server without internet.</source>
        <translation>服务器上的 {0} 没有安装 Workbench。请在那里用“{1}”安装；在本机运行“workbench targets wheelhouse DIR”可生成其中的约束文件，以及无法联网的服务器所需的全部安装包。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="61"/>
        <source>The server has Workbench {0}, this computer {1}. Install the same version there with “{2}”; “workbench targets wheelhouse DIR” on this computer writes that constraints file.</source>
        <translation>服务器上是 Workbench {0}，本机是 {1}。请在那里用“{2}”安装相同版本；在本机运行“workbench targets wheelhouse DIR”可生成其中的约束文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="65"/>
        <source>Paddle&apos;s own check failed on the server: {0}</source>
        <translation>服务器上 Paddle 的自检未通过：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="67"/>
        <source>The server&apos;s Paddle finds no {0} device (it finds: {1}). Install the Paddle build for that device there, or add the server again with the devices “cpu”.</source>
        <translation>服务器上的 Paddle 找不到 {0} 设备（它找到的是：{1}）。请在那里安装对应该设备的 Paddle 版本，或以设备“cpu”重新添加这台服务器。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="70"/>
        <source>The list of servers in {0} cannot be read. Fix or delete the file.</source>
        <translation>无法读取 {0} 中的服务器列表。请修复或删除该文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="72"/>
        <source>No server is registered as {0}. Add it with Servers… on the Train page.</source>
        <translation>没有名为 {0} 的服务器。请在“训练”页点击“服务器…”添加。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="74"/>
        <source>A server named {0} is already registered; remove it first or choose another name.</source>
        <translation>已有名为 {0} 的服务器；请先移除它，或换一个名称。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="78"/>
        <source>The file {0} was not found. Check the path, or pick the file again.</source>
        <translation>找不到文件 {0}。请检查路径，或重新选择文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="80"/>
        <source>{0} is a folder, not a file. Choose one data file inside it.</source>
        <translation>{0} 是文件夹，不是文件。请选择其中的一个数据文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="82"/>
        <source>{0} cannot be read ({1}). Check that you may open it and that it is not damaged.</source>
        <translation>无法读取 {0}（{1}）。请确认你有权打开它，且文件没有损坏。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="85"/>
        <source>{0} is empty (0 bytes). Choose a file that contains data.</source>
        <translation>{0} 是空文件（0 字节）。请选择包含数据的文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="87"/>
        <source>{0} cannot be opened: you may not read it. Check its permissions, or copy it to a folder of your own.</source>
        <translation>无法打开 {0}：你没有读取它的权限。请检查其权限，或把它复制到你自己的文件夹中。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="90"/>
        <source>{0} is too large to load into memory on this computer. Split it into smaller files or close other programs, then try again.</source>
        <translation>{0} 太大，本机内存装不下。请把它拆分成较小的文件，或关闭其他程序，然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="93"/>
        <source>{0} has no data rows: only a header (column names) was found. Add at least one row of data below the header.</source>
        <translation>{0} 没有数据行：只找到表头（列名）。请在表头下至少添加一行数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="97"/>
        <source>{0} is not a Workbench project. Create one with File › New project…, or open another folder.</source>
        <translation>{0} 不是 Workbench 项目。请用“文件 › 新建项目…”创建一个，或打开其他文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="100"/>
        <source>{0} is damaged and cannot be read. Restore it from a backup, or create a new project and import the data again.</source>
        <translation>{0} 已损坏，无法读取。请从备份恢复，或新建项目并重新导入数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="103"/>
        <source>Run {0} is training on this project&apos;s prepared data, so the data was not prepared again (its evaluation and a resume read the same files). Wait until it ends, or stop it on the Train page, then prepare again; your cleaning steps and choices are kept.</source>
        <translation>训练 {0} 正在使用本项目已准备好的数据，因此没有重新准备数据（它的评估和恢复训练都要读取这些文件）。请等它结束，或在“训练”页停止它，然后再准备；你的清洗步骤和选择都会保留。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="107"/>
        <source>{0} already holds a project of another template ({1}). Choose an empty folder or the same template.</source>
        <translation>{0} 中已有另一模板（{1}）的项目。请选择空文件夹或相同的模板。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="110"/>
        <source>{0} exists and is not empty. Choose an empty or new folder for the project.</source>
        <translation>{0} 已存在且不为空。请为项目选择一个空文件夹或新文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="112"/>
        <source>Data version {0} of the project {1} is missing, so a run that trained on it cannot read its rows. Restore the project&apos;s data folder from a backup.</source>
        <translation>项目 {1} 的数据版本 {0} 不见了，用它训练的那次训练无法读取其数据行。请从备份恢复项目的数据文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="115"/>
        <source>Data version {0} of the project {1} does not match the rows it was made from (version {2} was changed). Restore the project&apos;s data folder from a backup, or prepare the data again and train a new run.</source>
        <translation>项目 {1} 的数据版本 {0} 与生成它的数据行不一致（版本 {2} 被改动过）。请从备份恢复项目的数据文件夹，或重新准备数据并开始新的训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="121"/>
        <source>Judgements of answers and preference tuning are for projects that write answers; this project classifies.</source>
        <translation>对回答的评判和偏好调优只适用于生成回答的项目；此项目是分类任务。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="124"/>
        <source>No judgement has the id {0}.</source>
        <translation>没有编号为 {0} 的评判。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="126"/>
        <source>Judgement {0} was already taken back.</source>
        <translation>评判 {0} 已被撤回。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="128"/>
        <source>Some lines cannot be recorded (lines {0}), so nothing was recorded: {1}.</source>
        <translation>有些行无法记录（第 {0} 行），因此未记录任何内容：{1}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="130"/>
        <source>The file holds no judgements.</source>
        <translation>文件中没有评判。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="131"/>
        <source>{0} is not UTF-8 text; save it as UTF-8 JSON lines.</source>
        <translation>{0} 不是 UTF-8 文本；请另存为 UTF-8 编码的 JSON Lines。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="133"/>
        <source>{0} is neither a split of the project nor a file of questions.</source>
        <translation>{0} 既不是项目的数据划分，也不是问题文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="135"/>
        <source>Line {0} of the file of questions is not a JSON object.</source>
        <translation>问题文件的第 {0} 行不是 JSON 对象。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="137"/>
        <source>Ask for at least one question.</source>
        <translation>请至少选择一个问题。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="138"/>
        <source>Tuning on your judgements starts from a run: choose the run whose answers you judged.</source>
        <translation>根据您的评判调优需要从一次训练开始：请选择您评判过其回答的那次训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="140"/>
        <source>Run {0} classifies; tuning on your judgements starts from a run that writes answers.</source>
        <translation>训练 {0} 是分类任务；根据评判调优需要从生成回答的训练开始。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="142"/>
        <source>Run {0} has no trained weights to start from ({1}); choose a run that completed or saved a checkpoint.</source>
        <translation>训练 {0} 没有可作为起点的权重（{1}）；请选择已完成或已保存检查点的训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="145"/>
        <source>Run {0} trained elsewhere ({2}), so its model is not on server {1}. Start the tuning where the first run trained.</source>
        <translation>训练 {0} 在别处（{2}）进行，其模型不在服务器 {1} 上。请在第一次训练所在的位置开始调优。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="148"/>
        <source>{0} is missing: the run does not know which judgements it trains on. Start a new run.</source>
        <translation>{0} 缺失：该训练不知道要使用哪些评判。请开始新的训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="151"/>
        <source>There are no pairs of answers to tune on yet ({0} answers rated good have no answer rated bad to the same question). Choose between two answers, rewrite an answer rated bad, or rate good and bad answers to the same question.</source>
        <translation>还没有可用于调优的回答对（有 {0} 个评为好的回答，同一问题下没有评为差的回答）。请在两个回答中做选择、改写评为差的回答，或对同一问题的回答分别评为好和差。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="155"/>
        <source>All {0} pairs of answers are about one question, so none can be held out to show whether tuning helped. Judge answers to at least two questions.</source>
        <translation>全部 {0} 个回答对都针对同一个问题，无法留出一部分来检验调优是否有效。请至少评判两个问题的回答。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="158"/>
        <source>The project has no prepared data yet, so it has no rows to review. Prepare the data on the Data page first.</source>
        <translation>项目还没有准备好的数据，因此没有可复核的行。请先在“数据”页准备数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="161"/>
        <source>Only classification projects can be reviewed for wrong labels: this project&apos;s rows are questions and answers, which have no label to check.</source>
        <translation>只有分类项目可以复核错误标签：此项目的各行是问题和回答，没有可检查的标签。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="168"/>
        <source>The training and validation rows carry fewer than two labels, so there is nothing a label could be confused with. Prepare the data again with at least two labels.</source>
        <translation>训练和验证数据中的标签少于两个，不存在可混淆的标签。请用至少两个标签重新准备数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="171"/>
        <source>Too few rows to review: every label needs at least {1} training and validation rows, and {0} have fewer. Add rows, or merge or exclude these labels on the Data page&apos;s Labels tab, then review again.</source>
        <translation>可复核的行太少：每个标签至少需要 {1} 行训练和验证数据，而 {0} 不足。请增加数据，或在“数据”页的“标签”选项卡中合并或排除这些标签，然后再复核。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="175"/>
        <source>Run {0} was not trained to give one label per row, so it cannot judge these labels.</source>
        <translation>训练 {0} 不是为每行给出一个标签而训练的，无法判断这些标签。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="177"/>
        <source>Run {0} was trained on another label set: it has no {1}. Train a run on the project as it is prepared now.</source>
        <translation>训练 {0} 使用的是另一套标签：其中没有 {1}。请在当前准备好的数据上重新训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="180"/>
        <source>Corrections are for the labels of a classification project; this project writes answers.</source>
        <translation>更正只适用于分类项目的标签；本项目生成的是回答。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="164"/>
        <source>This project gives each row a set of labels, and the review suggests single labels: only projects with one label per row can be reviewed. Correct a row&apos;s label set in the table on the Data page: right-click the row.</source>
        <translation>本项目每行有一组标签，而复核给出的是单个标签的建议：只有每行一个标签的项目才能复核。请在“数据”页的表格中更正一行的标签集合：右键点击该行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="183"/>
        <source>This project&apos;s data was prepared before rows had ids, so a correction could not find its row again. Prepare the data again on the Data page (your steps and choices are kept), then correct.</source>
        <translation>本项目的数据是在数据行有编号之前准备的，更正无法再找到对应的行。请在“数据”页重新准备数据（你的步骤和选择都会保留），然后再更正。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="186"/>
        <source>{0} row(s) match no row of the project&apos;s data: {1}. Nothing was changed. The data may have been prepared again from another file since; evaluate the run again to see its rows.</source>
        <translation>有 {0} 个行编号在项目数据中找不到：{1}。未做任何更改。数据可能已用另一个文件重新准备；请重新评估这次训练以查看它的数据行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="189"/>
        <source>The project has no label {0}, so nothing was changed. Use one of: {1}.</source>
        <translation>本项目没有标签 {0}，未做任何更改。请使用以下标签之一：{1}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="191"/>
        <source>{0} must have the columns row_id and label (it has {1}). Write one row per correction, with an empty label to exclude the row.</source>
        <translation>{0} 必须有 row_id 和 label 两列（它现有的列：{1}）。每条更正写一行；label 留空表示排除该行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="194"/>
        <source>The corrections file {0} is damaged and cannot be read. Restore it from a backup, or remove it to start without corrections.</source>
        <translation>更正记录文件 {0} 已损坏，无法读取。请从备份恢复，或删除它，从没有更正的状态重新开始。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="197"/>
        <source>“{0}” is not a row id and a label joined by “=” (an empty label excludes the row).</source>
        <translation>“{0}”不是用“=”连接的行编号和标签（标签留空表示排除该行）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="199"/>
        <source>Nothing to correct: give a file of corrections, a row id with its new label, a row to mark as not sure or a correction to undo.</source>
        <translation>没有要更正的内容：请给出一个更正文件、一个行编号及其新标签、一个要标记为“不确定”的行，或一条要撤销的更正。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="203"/>
        <source>This project has no prepared data yet. Prepare it on the Data page first.</source>
        <translation>本项目还没有准备好的数据。请先在“数据”页准备数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="205"/>
        <source>Choose a base model: a built-in model, a model folder on this computer or a model id.</source>
        <translation>请选择基础模型：内置模型、本机上的模型文件夹或模型 ID。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="207"/>
        <source>This run needs about {0} GB of disk for its checkpoints and weights, and the disk of {2} has {1} GB free. Free some space (runs you no longer need can be deleted), or keep fewer checkpoints (Checkpoints kept, now {3}), then start again.</source>
        <translation>这次训练约需 {0} GB 磁盘空间存放检查点和权重，而 {2} 所在磁盘只剩 {1} GB。请腾出空间（可以删除不再需要的训练），或少保留一些检查点（“保留的检查点数”，当前为 {3}），然后重新开始。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="211"/>
        <source>Run {0} is already running. Wait until it ends, or stop it on the Train page.</source>
        <translation>训练 {0} 已在进行中。请等它结束，或在“训练”页停止它。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="213"/>
        <source>Run {0} has completed; start a new run to train further.</source>
        <translation>训练 {0} 已完成；如需继续训练，请开始新的训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="215"/>
        <source>Run {0} saved no checkpoint before it ended, so there is nothing to resume from. Start a new run instead.</source>
        <translation>训练 {0} 结束前没有保存检查点，无法从中恢复。请开始新的训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="218"/>
        <source>Run {0} is still training. Wait until it ends, or stop it on the Train page, then evaluate or export its last checkpoint.</source>
        <translation>训练 {0} 仍在进行。请等它结束，或在“训练”页停止它，然后评估或导出它最后的检查点。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="221"/>
        <source>Run {0} has not started training yet, so there is nothing to evaluate or export.</source>
        <translation>训练 {0} 尚未开始，还没有可评估或导出的内容。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="223"/>
        <source>Run {0} ended before saving a checkpoint, so it has no trained weights to evaluate or export. Train again, saving checkpoints more often.</source>
        <translation>训练 {0} 在保存检查点之前就结束了，没有可评估或导出的训练权重。请重新训练，并更频繁地保存检查点。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="227"/>
        <source>“{0}” gives the model no id: an id needs a letter or digit in Latin script. Rename the file or folder so that its name holds one (such as qwen2-0.5b-legal), then add it again.</source>
        <translation>“{0}”无法作为模型 ID：ID 需要含有拉丁字母或数字。请给文件或文件夹改一个含有字母或数字的名字（例如 qwen2-0.5b-legal），然后重新添加。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="230"/>
        <source>{0} does not exist. Choose a GGUF file (.gguf) or a model folder (with config.json).</source>
        <translation>{0} 不存在。请选择 GGUF 文件（.gguf）或模型文件夹（含 config.json）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="233"/>
        <source>{0} is neither a GGUF model file nor a folder. Choose a .gguf file, or the folder that holds config.json, the weights and the tokenizer.</source>
        <translation>{0} 既不是 GGUF 模型文件，也不是文件夹。请选择 .gguf 文件，或包含 config.json、权重和分词器的文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="236"/>
        <source>{0} has no config.json, so it is not a model folder. Choose the folder that holds config.json, the weights (*.safetensors) and the tokenizer files.</source>
        <translation>{0} 中没有 config.json，不是模型文件夹。请选择包含 config.json、权重（*.safetensors）和分词器文件的文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="239"/>
        <source>{0} cannot be read: the model folder looks damaged. Copy it again, then add it again.</source>
        <translation>无法读取 {0}：模型文件夹似乎已损坏。请重新复制后再添加。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="242"/>
        <source>The model folder {0} lacks {1} of its {2} weight files ({3}). Copy the complete folder, then add it again.</source>
        <translation>模型文件夹 {0} 的 {2} 个权重文件中缺少 {1} 个（{3}）。请复制完整的文件夹后再添加。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="245"/>
        <source>The model folder {0} has no weights (*.safetensors). Copy the complete folder, with its weight files (.bin and .pdparams files are not added).</source>
        <translation>模型文件夹 {0} 中没有权重（*.safetensors）。请复制包含权重文件的完整文件夹（.bin 和 .pdparams 文件不会被添加）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="248"/>
        <source>The model folder {0} has no tokenizer (tokenizer.json, tokenizer.model or vocab.json). Copy the model&apos;s tokenizer files into the folder.</source>
        <translation>模型文件夹 {0} 中没有分词器（tokenizer.json、tokenizer.model 或 vocab.json）。请把模型的分词器文件复制到该文件夹中。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="251"/>
        <source>{0} is inside Workbench&apos;s own model folder; its models are in the list already.</source>
        <translation>{0} 位于 Workbench 自己的模型文件夹中，其中的模型已在列表里。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="253"/>
        <source>The folder {0} is in the list already, as {1}. Choose that one, or remove it first.</source>
        <translation>文件夹 {0} 已在列表中，名为 {1}。请直接选择它，或先将其移除。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="256"/>
        <source>The output folder {0} already exists and is not empty. Choose a new folder (or delete the old export first); an export never overwrites files.</source>
        <translation>输出文件夹 {0} 已存在且不为空。请选择新文件夹（或先删除旧的导出）；导出从不覆盖文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="260"/>
        <source>{0} is empty: it holds only blank lines or spaces. Choose a file that contains data.</source>
        <translation>{0} 是空的：其中只有空行或空白。请选择包含数据的文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="263"/>
        <source>{0} has no columns. Its first line or record should name the columns.</source>
        <translation>{0} 没有列。它的第一行或第一条记录应当给出列名。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="265"/>
        <source>{0} has no columns: no header line was found. Its first line should hold the column names.</source>
        <translation>{0} 没有列：找不到表头行。文件的第一行应当是列名。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="268"/>
        <source>{0} has rows with more fields than the header has column names (the first is data row {1}, counting from the line after the header: {2} fields, header {3}). A value probably contains the delimiter without quotes. Put that value in quotes, or add the missing column name to the header, then import the file again.</source>
        <translation>{0} 中有些行的字段数多于表头的列名数（第一处是第 {1} 行数据，从表头的下一行算起：{2} 个字段，表头只有 {3} 个）。很可能某个值含有分隔符却没有加引号。请给该值加上引号，或在表头补上缺少的列名，然后重新导入文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="273"/>
        <source>{0} is not a regular table: line {1} has {2} fields but the header has {3} (fields are separated by {4}). A value probably contains the delimiter without quotes. Put that value in double quotes, or fix the line, then import the file again.</source>
        <translation>{0} 不是规整的表格：第 {1} 行有 {2} 个字段，而表头有 {3} 个（字段以{4}分隔）。很可能某个值含有分隔符却没有加引号。请给该值加上双引号，或修正这一行，然后重新导入文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="277"/>
        <source>{0} has a quotation mark that is never closed, starting at row {1}. Close or remove the stray quotation mark, then import the file again.</source>
        <translation>{0} 从第 {1} 行开始有一个没有闭合的引号。请补全或删除这个多余的引号，然后重新导入文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="280"/>
        <source>{0} could not be read as a table ({1}). Check that it is a CSV or TSV file, then import it again.</source>
        <translation>无法将 {0} 读取为表格（{1}）。请确认它是 CSV 或 TSV 文件，然后重新导入。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="283"/>
        <source>{0} could not be decoded as {1} text (a byte at position {2} does not fit): the file probably mixes encodings. Save it again as UTF-8 (in Excel: “CSV UTF-8”), then import it again.</source>
        <translation>无法按 {1} 编码解码 {0}（位置 {2} 处的字节不符合）：文件很可能混用了多种编码。请把它重新保存为 UTF-8（在 Excel 中选择“CSV UTF-8”），然后重新导入。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="287"/>
        <source>{0} is not a real Excel workbook: its content looks like text (perhaps a CSV file). Open it in Excel and save it as .xlsx, or give it the suffix of its real type.</source>
        <translation>{0} 并不是真正的 Excel 工作簿：它的内容看起来是文本（可能是 CSV 文件）。请在 Excel 中打开并另存为 .xlsx，或把扩展名改成它真实的类型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="290"/>
        <source>{0} is not a real Excel workbook: its content looks like some other kind of file. Open it in Excel and save it as .xlsx, or give it the suffix of its real type.</source>
        <translation>{0} 并不是真正的 Excel 工作簿：它的内容看起来是其他类型的文件。请在 Excel 中打开并另存为 .xlsx，或把扩展名改成它真实的类型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="293"/>
        <source>{0} could not be opened as an Excel workbook ({1}). It may be damaged, password-protected or not really an Excel file. Open it in Excel, save it again as .xlsx, then import it again.</source>
        <translation>无法将 {0} 作为 Excel 工作簿打开（{1}）。它可能已损坏、设有密码保护，或并不是真正的 Excel 文件。请在 Excel 中打开并重新另存为 .xlsx，然后重新导入。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="297"/>
        <source>{0} contains no worksheets. Add a sheet with data, then import it again.</source>
        <translation>{0} 中没有工作表。请添加一个含数据的工作表，然后重新导入。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="299"/>
        <source>{0} has no sheet named {1}. Its sheets are: {2}. Choose one of them.</source>
        <translation>{0} 中没有名为 {1} 的工作表。它的工作表有：{2}。请从中选择一个。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="302"/>
        <source>Sheet {0} of {1} is empty. Choose the sheet that holds the data (sheets: {2}).</source>
        <translation>{1} 的工作表 {0} 是空的。请选择包含数据的工作表（工作表有：{2}）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="305"/>
        <source>{0}: record {1} has no “{2}” list of turns like the other records. Fix or remove that record, then import the file again.</source>
        <translation>{0}：第 {1} 条记录不像其他记录那样带有“{2}”对话轮次列表。请修正或删除该记录，然后重新导入文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="308"/>
        <source>{0} is not valid JSON: it should start with a square bracket (a list of records) or a curly brace (one record per line, JSON Lines). Check that the file really is JSON.</source>
        <translation>{0} 不是有效的 JSON：它应以方括号（记录列表）或花括号（每行一条记录，即 JSON Lines）开头。请确认该文件确实是 JSON。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="311"/>
        <source>{0} is not valid JSON: {1} at line {2}, column {3}. Fix the file there (a missing comma, quote or bracket is the usual cause), then try again.</source>
        <translation>{0} 不是有效的 JSON：第 {2} 行第 {3} 列有误（{1}）。请在该处修正文件（通常是缺了逗号、引号或括号），然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="314"/>
        <source>{0}: line {1} is not valid JSON ({2}, column {3}). In a JSON Lines file every line holds one complete JSON value. Fix that line, then try again.</source>
        <translation>{0}：第 {1} 行不是有效的 JSON（{2}，第 {3} 列）。JSON Lines 文件的每一行都必须是一个完整的 JSON 值。请修正该行，然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="317"/>
        <source>{0}: line {1} is not an array like the lines before it. Make every line the same kind, then try again.</source>
        <translation>{0}：第 {1} 行不像前面各行那样是数组。请让每一行的类型一致，然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="320"/>
        <source>{0} has no data rows: the JSON holds an empty list. Add records, then import it again.</source>
        <translation>{0} 没有数据行：其中的 JSON 是一个空列表。请添加记录后重新导入。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="323"/>
        <source>{0}: item {1} of the list is not an object with named fields like the other records. Make every record the same kind, then import the file again.</source>
        <translation>{0}：列表中的第 {1} 项不像其他记录那样是带字段名的对象。请让所有记录的类型一致，然后重新导入文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="326"/>
        <source>{0}: line {1} is not an object with named fields like the other records. Make every record the same kind, then import the file again.</source>
        <translation>{0}：第 {1} 行不像其他记录那样是带字段名的对象。请让所有记录的类型一致，然后重新导入文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="329"/>
        <source>{0} could not be read as a Parquet file ({1}). It may be damaged or not really Parquet. Export it again, then import it again.</source>
        <translation>无法将 {0} 读取为 Parquet 文件（{1}）。它可能已损坏，或并不是真正的 Parquet 文件。请重新导出后再导入。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="332"/>
        <source>{0} is not a TFRecord file of tf.train.Example records ({1}). Check that you picked the right file, and that it was written with tf.io.TFRecordWriter.</source>
        <translation>{0} 不是由 tf.train.Example 记录组成的 TFRecord 文件（{1}）。请确认选对了文件，并且它是用 tf.io.TFRecordWriter 写出的。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="335"/>
        <source>{0} is damaged at record {1} ({3}); the {2} records before it are fine. Write or copy the file again, then import it again.</source>
        <translation>{0} 在第 {1} 条记录处损坏（{3}）；之前的 {2} 条记录完好。请重新写出或复制该文件，然后重新导入。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="338"/>
        <source>{0} has no data rows: it holds no records. Choose a file with data.</source>
        <translation>{0} 没有数据行：其中没有任何记录。请选择包含数据的文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="340"/>
        <source>{0} has no columns: its records hold no features.</source>
        <translation>{0} 没有列：其记录中没有任何特征。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="342"/>
        <source>The file has no column “{0}”; its columns are {1}.</source>
        <translation>文件中没有“{0}”列；它的列有：{1}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="345"/>
        <source>This cleaning recipe was written by a newer Workbench (recipe version {0}; this version reads version {1} and older). Update Workbench to use it.</source>
        <translation>此清洗方案由较新版本的 Workbench 写出（方案版本 {0}；当前版本只能读取 {1} 及更早的版本）。请更新 Workbench 后再使用。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="348"/>
        <source>The cleaning recipe is not valid: at “{0}”, {1}. Fix the recipe, then try again.</source>
        <translation>清洗方案无效：“{0}”处有误（{1}）。请修正方案后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="351"/>
        <source>The cleaning recipe is not valid JSON ({0}).</source>
        <translation>清洗方案不是有效的 JSON（{0}）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="353"/>
        <source>The cleaning recipe {0} is not valid JSON ({1}).</source>
        <translation>清洗方案 {0} 不是有效的 JSON（{1}）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="355"/>
        <source>The cleaning recipe {0} cannot be read ({1}). Check that it exists and that you may open it.</source>
        <translation>无法读取清洗方案 {0}（{1}）。请确认它存在且你有权打开它。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="358"/>
        <source>{0} works on the column “{1}”, which the data does not have (its columns: {2}). Choose another column in the step, or remove the step.</source>
        <translation>{0}作用于“{1}”列，但数据中没有这一列（现有的列：{2}）。请在该步骤中改选其他列，或删除该步骤。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="361"/>
        <source>{0} is of a kind this version of Workbench does not know. Update Workbench, or remove the step.</source>
        <translation>当前版本的 Workbench 无法识别{0}的类型。请更新 Workbench，或删除该步骤。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="364"/>
        <source>{0} has a setting that is not valid: {1} Correct it in the step.</source>
        <translation>{0}的设置无效：{1} 请在该步骤中修正。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="366"/>
        <source>{0}: the text to find or its replacement is not a valid regular expression ({1}). Correct it, or untick Regular expression.</source>
        <translation>{0}：要查找的文本或替换文本不是有效的正则表达式（{1}）。请修正，或取消勾选“正则表达式”。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="369"/>
        <source>“{0}” is not a label of this project.</source>
        <translation>“{0}”不是本项目的标签。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="371"/>
        <source>A label name cannot be empty.</source>
        <translation>标签名称不能为空。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="374"/>
        <source>The split shares {0} must not be negative, the training share must be above zero, and together they must make 1.</source>
        <translation>划分比例 {0} 不能为负数，训练部分必须大于零，且各部分之和必须为 1。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="377"/>
        <source>Only {0} rows are left; at least 3 are needed to split them into training, validation and test rows.</source>
        <translation>只剩 {0} 行；至少需要 3 行才能划分为训练、验证和测试数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="380"/>
        <source>The rows come from only {0} documents; at least 3 are needed to keep each document in one of training, validation and test.</source>
        <translation>这些行只来自 {0} 个文档；至少需要 3 个文档，才能让每个文档整体归入训练、验证或测试数据之一。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="383"/>
        <source>The template folder {0} has no {1}. Add one, or remove the folder.</source>
        <translation>模板文件夹 {0} 中没有 {1}。请添加该文件，或删除这个文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="385"/>
        <source>The template file {0} is not valid YAML ({1}). Fix the file, then try again.</source>
        <translation>模板文件 {0} 不是有效的 YAML（{1}）。请修正文件后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="388"/>
        <source>The template file {0} must hold a mapping of fields at the top level.</source>
        <translation>模板文件 {0} 的顶层必须是字段的映射。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="390"/>
        <source>The template file {0} is not valid: {1}. Fix the file, then try again.</source>
        <translation>模板文件 {0} 无效：{1}。请修正文件后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="392"/>
        <source>The template file {0} names the sample data {1}, which is not in {2}. Add the file, or correct the field sample_data.</source>
        <translation>模板文件 {0} 指定的示例数据 {1} 不在 {2} 中。请添加该文件，或修正 sample_data 字段。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="395"/>
        <source>There is no template {0}. The templates are: {1}.</source>
        <translation>没有名为 {0} 的模板。现有的模板：{1}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="397"/>
        <source>The template id “{0}” may use only lower-case letters, digits, “_” and “-”, and must start with a letter or digit (for example hospital_triage).</source>
        <translation>模板 ID“{0}”只能使用小写字母、数字、“_”和“-”，并且必须以字母或数字开头（例如 hospital_triage）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="400"/>
        <source>A template with the id {0} exists already. Choose another id.</source>
        <translation>已有 ID 为 {0} 的模板。请换一个 ID。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="402"/>
        <source>{0} exists already. Choose another id, or remove that folder.</source>
        <translation>{0} 已存在。请换一个 ID，或删除该文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="405"/>
        <source>{0} is not a run folder (it has no job.json).</source>
        <translation>{0} 不是训练文件夹（其中没有 job.json）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="407"/>
        <source>{0} is damaged ({1}); the run cannot be read.</source>
        <translation>{0} 已损坏（{1}），无法读取这次训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="409"/>
        <source>There is no run {0} in this project. Its runs: {1}.</source>
        <translation>本项目中没有训练 {0}。现有的训练：{1}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="411"/>
        <source>Checkpoint {0} is not a choice; choose the best or the last checkpoint.</source>
        <translation>检查点 {0} 不是有效的选项；只能选择最佳检查点或最后一个检查点。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="413"/>
        <source>This project has several labels per row, which a model writing its label as text does not learn. Train {0} with a classification head (the default), or choose the built-in classifier.</source>
        <translation>本项目每行有多个标签，而以文本形式写出标签的模型学不会这种任务。请为 {0} 加上分类头来训练（默认方式），或改用内置分类器。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="416"/>
        <source>Run {0} trains on this computer, not on a server.</source>
        <translation>训练 {0} 在本机上进行，而不是在服务器上。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="418"/>
        <source>Copying to server {0} failed: {1}</source>
        <translation>复制到服务器 {0} 失败：{1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="420"/>
        <source>Server {0} did not list its runs. Check it with Servers… on the Train page.</source>
        <translation>服务器 {0} 没有列出它的训练。请在“训练”页点击“服务器…”检查它。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="422"/>
        <source>Server {0} did not delete run {1}: {2}</source>
        <translation>服务器 {0} 没有删除训练 {1}：{2}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="424"/>
        <source>The package files could not be written: {0}</source>
        <translation>无法写出软件包文件：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="427"/>
        <source>The list of models ({0}) is being changed by another Workbench window or command and stayed locked for {1} s. Wait for it to finish, then try again.</source>
        <translation>模型列表（{0}）正被另一个 Workbench 窗口或命令修改，已锁定 {1} 秒。请等它完成后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="430"/>
        <source>The list of models {0} is damaged ({1}). Move it aside to start an empty list (the model folders beside it stay), then add the models again.</source>
        <translation>模型列表 {0} 已损坏（{1}）。请把它移到别处，从空列表重新开始（旁边的模型文件夹会保留），然后重新添加模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="433"/>
        <source>No model in the list has the id {0} (the list holds: {1}).</source>
        <translation>模型列表中没有 ID 为 {0} 的模型（列表中有：{1}）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="435"/>
        <source>The model {0} (id {1}) in the list has no model in its folder {2} any more. Put the folder back, or remove the model from the list (Remove, beside the list of models on the Train page) and add it again.</source>
        <translation>列表中的模型 {0}（ID {1}）的文件夹 {2} 中已经没有模型。请把文件夹放回原处，或从列表中移除该模型（“训练”页模型列表旁的“移除”）后重新添加。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="439"/>
        <source>A model named {0} (id {1}) is already registered. Remove that one first (Remove, beside the list of models on the Train page), or add this one from a file or folder of another name.</source>
        <translation>已登记过名为 {0}（ID {1}）的模型。请先移除它（“训练”页模型列表旁的“移除”），或把这个模型的文件或文件夹改名后再添加。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="443"/>
        <source>{0} is not a model Workbench can get from the package registry; it has {1}. A model of your own is added with Add a model… on the Train page.</source>
        <translation>{0} 不是 Workbench 能从软件包仓库获取的模型；仓库中有：{1}。你自己的模型请在“训练”页用“添加模型…”添加。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="446"/>
        <source>This build of Workbench cannot install packages, and {0} is not part of it. Install it with pip in a Python 3.11 environment, take the GGUF file its assemble() writes, and add that file with Add a model… on the Train page.</source>
        <translation>此版本的 Workbench 无法安装软件包，而其中不含 {0}。请在 Python 3.11 环境中用 pip 安装它，取得其 assemble() 写出的 GGUF 文件，再在“训练”页用“添加模型…”添加该文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="450"/>
        <source>pip could not be started ({1}), so {0} cannot be installed. Install it yourself (“pip install {0}”), then try again.</source>
        <translation>无法启动 pip（{1}），因此无法安装 {0}。请自行安装（“pip install {0}”），然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="453"/>
        <source>The package registry could not be reached, or it does not have {0} (pip said: {1}). Check the network connection and the registry settings. On a computer without access, download the packages on one that has it (“pip download {0} -d wheels”), bring the folder over and install them (“pip install --no-index --find-links wheels {0}”), then try again.</source>
        <translation>无法连接软件包仓库，或仓库中没有 {0}（pip 的输出：{1}）。请检查网络连接和仓库设置。若本机无法访问仓库，请在能访问的电脑上下载软件包（“pip download {0} -d wheels”），把文件夹拷过来后安装（“pip install --no-index --find-links wheels {0}”），然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="458"/>
        <source>pip could not install {0} (pip said: {1}). Check the network connection and the registry settings. On a computer without access, download the packages on one that has it (“pip download {0} -d wheels”), bring the folder over and install them (“pip install --no-index --find-links wheels {0}”), then try again.</source>
        <translation>pip 无法安装 {0}（pip 的输出：{1}）。请检查网络连接和仓库设置。若本机无法访问仓库，请在能访问的电脑上下载软件包（“pip download {0} -d wheels”），把文件夹拷过来后安装（“pip install --no-index --find-links wheels {0}”），然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="463"/>
        <source>{0} comes under the {1}. Read them ({2}), then get the model again and accept them when Workbench asks (it asks once).</source>
        <translation>{0} 受 {1} 约束。请阅读这些条款（{2}），然后重新获取模型，并在 Workbench 询问时接受（只问一次）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="467"/>
        <source>The output {0} must end in .csv or .xlsx (CSV or Excel).</source>
        <translation>输出文件 {0} 的扩展名必须是 .csv 或 .xlsx（CSV 或 Excel）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="469"/>
        <source>The output must be a new file: your input file is never overwritten.</source>
        <translation>输出必须是新文件：输入文件永远不会被覆盖。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="471"/>
        <source>The output {0} is a folder; give a file name ending in .csv or .xlsx.</source>
        <translation>输出 {0} 是一个文件夹；请给出以 .csv 或 .xlsx 结尾的文件名。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="473"/>
        <source>The file has no column for the text the model reads ({0}); its columns are {1}. Rename that column, or keep only the text column.</source>
        <translation>文件中没有模型所读文本的列（{0}）；它的列有：{1}。请重命名该列，或只保留文本列。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="476"/>
        <source>{0} has no rows to predict.</source>
        <translation>{0} 中没有可预测的行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="479"/>
        <source>This project has no {0} prepared. Prepare the data again on the Data page.</source>
        <translation>本项目没有准备好的{0}。请在“数据”页重新准备数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="481"/>
        <source>This project&apos;s {0} are empty, so there is nothing to evaluate on. Prepare the data again with a test share above zero (Split, on the Data page).</source>
        <translation>本项目的{0}为空，没有可评估的内容。请在“数据”页的“划分”中把测试比例设为大于零，然后重新准备数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="484"/>
        <source>This model was not trained for several labels per row. Train the multi-label project again with the built-in classifier.</source>
        <translation>此模型不是按每行多个标签训练的。请用内置分类器重新训练这个多标签项目。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="487"/>
        <source>The LoRA adapter in {0} cannot be loaded onto {1} ({2}).</source>
        <translation>无法把 {0} 中的 LoRA 适配器加载到 {1} 上（{2}）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="490"/>
        <source>Unknown export formats: {0}. Choose from {1}.</source>
        <translation>未知的导出格式：{0}。请从 {1} 中选择。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="492"/>
        <source>The GGUF type {0} is unknown; choose f16, q8_0 or f32.</source>
        <translation>GGUF 类型 {0} 未知；请选择 f16、q8_0 或 f32。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="494"/>
        <source>Packages cannot be pinned for {0}; choose one of {1} under Packages for.</source>
        <translation>无法为 {0} 锁定软件包；请在“软件包适用于”中选择 {1} 之一。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="497"/>
        <source>The exported tokenizer.json splits a test prompt into other tokens than the model&apos;s tokenizer, so predict.py would feed the model different tokens. So nothing was exported.</source>
        <translation>导出的 tokenizer.json 对一条测试提示词的分词结果与模型自身的分词器不同，predict.py 会向模型输入不同的词元，因此没有导出任何内容。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="500"/>
        <source>The exported classifier gives other label sets than the evaluation on some test inputs, so it was not exported.</source>
        <translation>导出的分类器在部分测试输入上给出的标签组合与评估结果不同，因此没有导出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="503"/>
        <source>The exported classifier picks a different label from the evaluation on some test inputs, so it was not exported.</source>
        <translation>导出的分类器在部分测试输入上选出的标签与评估结果不同，因此没有导出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="506"/>
        <source>The bundle&apos;s predict.py failed on test rows (exit status {0}): {1}</source>
        <translation>导出包中的 predict.py 在测试数据上运行失败（退出状态 {0}）：{1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="508"/>
        <source>On test rows the bundle&apos;s predict.py answered {0} where the evaluation answers {1}.</source>
        <translation>在测试数据上，导出包中的 predict.py 给出的是 {0}，而评估给出的是 {1}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="511"/>
        <source>The package {0}, which the bundle needs, is not installed here, so the bundle&apos;s requirements cannot be pinned. Reinstall Workbench.</source>
        <translation>导出包所需的软件包 {0} 没有安装在本机上，因此无法锁定导出包的依赖版本。请重新安装 Workbench。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="514"/>
        <source>This installation has no pip, so it cannot download the bundle&apos;s packages. Export without them (untick Also the files of every package it needs), then download them into the bundle on a computer with Python (“pip download -r requirements.lock -d wheels”).</source>
        <translation>此安装中没有 pip，因此无法下载导出包所需的软件包。请不带软件包导出（取消勾选“同时附带所需全部软件包的文件”），然后在装有 Python 的电脑上把它们下载到导出包中（“pip download -r requirements.lock -d wheels”）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="518"/>
        <source>Downloading the bundle&apos;s packages took longer than {0} minutes. Export again, or without them (untick Also the files of every package it needs).</source>
        <translation>下载导出包所需的软件包超过了 {0} 分钟。请重新导出，或不带软件包导出（取消勾选“同时附带所需全部软件包的文件”）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="521"/>
        <source>The bundle&apos;s packages could not be downloaded (this needs a package index once, at export): {0}. Export without them, or where the index is reachable.</source>
        <translation>无法下载导出包所需的软件包（导出时需要访问一次软件包索引）：{0}。请不带软件包导出，或在能访问该索引的地方导出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="524"/>
        <source>The downloaded packages do not install the bundle&apos;s requirements.lock on their own: {0}</source>
        <translation>下载的软件包无法单独装好导出包的 requirements.lock：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="527"/>
        <source>The bundle&apos;s packages cannot be fetched: {0}. Export without them, or for another system under Packages for.</source>
        <translation>无法获取导出包所需的软件包：{0}。请不带软件包导出，或在“软件包适用于”中选择其他系统。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="530"/>
        <source>The bundle&apos;s packages cannot be fetched: {0}. Export without them, or where a package index is reachable.</source>
        <translation>无法获取导出包所需的软件包：{0}。请不带软件包导出，或在能访问软件包索引的地方导出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="533"/>
        <source>The generation model could not be exported: {0} So nothing was exported.</source>
        <translation>无法导出生成模型：{0} 因此没有导出任何内容。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="535"/>
        <source>The model&apos;s tokenizer ({0}) has no tokenizer.json and could not be converted to one ({1}), so predict.py could not tokenize without the training software.</source>
        <translation>模型的分词器（{0}）没有 tokenizer.json，也无法转换出一个（{1}），因此 predict.py 离开训练软件就无法分词。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="538"/>
        <source>This model has no linear layers for weight-only int8 to quantise. Export it without the 8-bit (int8) model.</source>
        <translation>此模型没有可做仅权重 int8 量化的线性层。请不带 8 位（int8）模型导出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="541"/>
        <source>The tokenizer&apos;s chat template changes the user&apos;s text, so the prompt cannot be written as plain text for predict.py.</source>
        <translation>分词器的对话模板会改动用户的文本，因此无法把提示词写成供 predict.py 使用的纯文本。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="544"/>
        <source>The tokenizer&apos;s chat template formats some inputs differently from a fixed prefix and suffix, so predict.py could not reproduce the prompt.</source>
        <translation>分词器的对话模板对部分输入的排版不同于固定的前缀和后缀，因此 predict.py 无法重现提示词。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="547"/>
        <source>The static model&apos;s files were not written ({0}). Export again.</source>
        <translation>静态图模型的文件没有写出（{0}）。请重新导出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="549"/>
        <source>The exported model returned outputs of shape {0} where the trained model returns {1}.</source>
        <translation>导出的模型输出的形状是 {0}，而训练所得模型输出的形状是 {1}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="552"/>
        <source>The GGUF file&apos;s scores have the shape {0} where the trained model&apos;s have {1}, so it was not exported.</source>
        <translation>GGUF 文件输出的分数形状为 {0}，而训练所得模型的为 {1}，因此没有导出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="555"/>
        <source>The GGUF file&apos;s own answers leave the trained model&apos;s on {0} of {1} test prompts at a token the trained model clearly prefers, so llama.cpp would answer differently from the trained model; it was not exported. Untick GGUF and export again.</source>
        <translation>在 {1} 条测试提示词中，有 {0} 条由 GGUF 文件自行生成的回答在训练所得模型明显偏好的词元处偏离了它，llama.cpp 给出的回答会与训练所得模型不同，因此没有导出。请取消勾选 GGUF 后重新导出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="559"/>
        <source>The GGUF file&apos;s scores differ from the trained model&apos;s by up to {0} (allowed {1}; the next token agrees at {2} % of {3} positions), so it was not exported. Untick GGUF and export again.</source>
        <translation>GGUF 文件输出的分数与训练所得模型相差最多 {0}（允许 {1}；在 {3} 个位置中，下一个词元一致的占 {2}%），因此没有导出。请取消勾选 GGUF 后重新导出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="563"/>
        <source>The vocabulary written to the GGUF file splits {0} of {1} test prompts into other tokens than the model&apos;s tokenizer, so llama.cpp would feed the model other tokens; it was not exported.</source>
        <translation>在 {1} 条测试提示词中，写入 GGUF 文件的词表有 {0} 条的分词结果与模型的分词器不同，llama.cpp 会向模型输入不同的词元，因此没有导出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="567"/>
        <source>The Modelfile&apos;s template gives other prompts than the engine for some test inputs, so ollama would not prompt the model as it was trained.</source>
        <translation>对部分测试输入，Modelfile 的模板生成的提示词与训练时不同，ollama 将无法按训练时的方式向模型提问。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="570"/>
        <source>The model&apos;s chat template repeats or drops the user&apos;s text, so it cannot be written as an ollama template.</source>
        <translation>模型的对话模板会重复或丢掉用户的文本，因此无法写成 ollama 模板。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="573"/>
        <source>The text holds three double quotation marks in a row, which a Modelfile cannot quote.</source>
        <translation>文本中有三个连续的双引号，Modelfile 无法为其加引号。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="576"/>
        <source>Cancelled; nothing was written and nothing is left behind.</source>
        <translation>已取消；没有写入任何内容，也没有留下任何文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="578"/>
        <source>{0} is not a readable GGUF file ({1}). It may be incomplete (a download that stopped early) or another kind of file; download or copy it again.</source>
        <translation>{0} 不是可读取的 GGUF 文件（{1}）。它可能不完整（下载中途停止），也可能是其他类型的文件；请重新下载或复制。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="581"/>
        <source>{0} is cut short: its tensor {1} ends past the end of the file ({2} bytes). Download or copy the file again.</source>
        <translation>{0} 不完整：其中的张量 {1} 超出了文件末尾（文件共 {2} 字节）。请重新下载或复制该文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="584"/>
        <source>{0} holds a model of the {1} architecture, which Workbench cannot convert. It converts GGUF files of these families: {2}. Choose a GGUF file of one of them.</source>
        <translation>{0} 中是 {1} 架构的模型，Workbench 无法转换。它能转换以下系列的 GGUF 文件：{2}。请选择其中某个系列的 GGUF 文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="587"/>
        <source>The tensor {0} is stored as {1}, which Workbench cannot read yet. Use a GGUF file of another quantisation (for example Q4_K_M, Q8_0 or F16).</source>
        <translation>张量 {0} 以 {1} 格式存储，Workbench 暂时无法读取。请使用其他量化格式的 GGUF 文件（例如 Q4_K_M、Q8_0 或 F16）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="590"/>
        <source>The tensor {0} holds {1} values where the file&apos;s header says {2}: the file is damaged. Download or copy it again.</source>
        <translation>张量 {0} 含有 {1} 个值，而文件头标明的形状是 {2}：文件已损坏。请重新下载或复制。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="593"/>
        <source>The tensor {0} has the shape {1}, not {2}.</source>
        <translation>张量 {0} 的形状是 {1}，而不是 {2}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="595"/>
        <source>The GGUF file lacks {0}, which describes the model. The file may be damaged or written by an unusual tool; use another copy.</source>
        <translation>GGUF 文件缺少描述模型的 {0}。文件可能已损坏，或是由不常见的工具写出的；请换一份副本。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="598"/>
        <source>The model uses {0} rope scaling, which Workbench cannot carry over yet.</source>
        <translation>该模型使用 {0} 方式的 RoPE 缩放，Workbench 暂时无法转换。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="600"/>
        <source>The model scales its rope frequencies in a way Workbench does not recognise (its rope_freqs tensor is not Llama 3.1&apos;s scaling); it cannot be converted yet.</source>
        <translation>该模型缩放 RoPE 频率的方式 Workbench 无法识别（其 rope_freqs 张量不是 Llama 3.1 的缩放方式），暂时无法转换。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="603"/>
        <source>The model rotates {0} of its {1} head dimensions, which a plain {2} model does not; Workbench cannot convert this variant.</source>
        <translation>该模型只对其 {1} 个注意力头维度中的 {0} 个做旋转，普通的 {2} 模型不会这样；Workbench 无法转换这种变体。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="606"/>
        <source>{0} holds no tokenizer vocabulary (tokenizer.ggml.tokens), which the model needs. Use a GGUF file converted with its tokenizer.</source>
        <translation>{0} 中没有模型所需的分词器词表（tokenizer.ggml.tokens）。请使用连同分词器一起转换的 GGUF 文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="609"/>
        <source>{0} holds a tensor {1} that a plain {2} model does not have; it may be a variant (mixture of experts, vision) Workbench cannot convert.</source>
        <translation>{0} 中有普通 {2} 模型所没有的张量 {1}；它可能是 Workbench 无法转换的变体（混合专家或视觉模型）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="612"/>
        <source>{0} has no token embedding (token_embd.weight); the file is incomplete.</source>
        <translation>{0} 中没有词元嵌入（token_embd.weight）；文件不完整。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="614"/>
        <source>{0} has {1} tokens in its vocabulary but {2} rows in its embedding; the file is inconsistent.</source>
        <translation>{0} 的词表有 {1} 个词元，而嵌入有 {2} 行；文件内容前后不一致。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="617"/>
        <source>The GGUF file&apos;s byte-level vocabulary has no merge list (tokenizer.ggml.merges); its tokenizer cannot be rebuilt. Use another copy of the file.</source>
        <translation>GGUF 文件的字节级词表没有合并列表（tokenizer.ggml.merges），无法重建其分词器。请换一份该文件的副本。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="620"/>
        <source>The GGUF file&apos;s tokenizer is of the {0} kind; Workbench rebuilds SentencePiece (llama) and byte-level BPE (gpt2) tokenizers. Use a model with one of them.</source>
        <translation>GGUF 文件的分词器属于 {0} 类型；Workbench 只能重建 SentencePiece（llama）和字节级 BPE（gpt2）分词器。请使用带有其中一种分词器的模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="623"/>
        <source>The folder {0} already exists. Choose a new folder name for the converted model.</source>
        <translation>文件夹 {0} 已存在。请为转换后的模型另选一个新的文件夹名。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="625"/>
        <source>The folder {0} does not exist. Create it first, or choose another place.</source>
        <translation>文件夹 {0} 不存在。请先创建它，或另选位置。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="627"/>
        <source>{0} could not be read ({1}). Export the model again.</source>
        <translation>无法读取 {0}（{1}）。请重新导出模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="629"/>
        <source>{0} holds no .safetensors weights; a GGUF file is written from merged weights (the format Merged weights).</source>
        <translation>{0} 中没有 .safetensors 权重；GGUF 文件要由合并后的权重写出（“合并后的权重”格式）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="632"/>
        <source>{0} has no tokenizer.json, which the GGUF file needs for its vocabulary. Export the model again.</source>
        <translation>{0} 中没有 GGUF 文件的词表所需的 tokenizer.json。请重新导出模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="635"/>
        <source>The tensor {0} in {1} is stored as {2}; only float32, float16 and bfloat16 weights can be written to GGUF.</source>
        <translation>{1} 中的张量 {0} 以 {2} 格式存储；只有 float32、float16 和 bfloat16 权重可以写入 GGUF。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="638"/>
        <source>This model is the built-in classifier, which has no GGUF form; GGUF files are written for {0} language models.</source>
        <translation>此模型是内置分类器，没有 GGUF 形式；GGUF 文件只为 {0} 语言模型写出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="641"/>
        <source>This model is of the type {0}, which has no GGUF form here; GGUF files are written for {1} language models.</source>
        <translation>此模型的类型是 {0}，这里没有它的 GGUF 形式；GGUF 文件只为 {1} 语言模型写出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="644"/>
        <source>This Gemma 3 model scales its queries by {0}, where llama.cpp uses {1} for its size, so llama.cpp would not compute it as trained; it has no GGUF form.</source>
        <translation>此 Gemma 3 模型用 {0} 缩放查询向量，而 llama.cpp 对这种规模的模型用的是 {1}，因此 llama.cpp 无法按训练时的方式计算它；它没有 GGUF 形式。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="647"/>
        <source>The model&apos;s rope scaling ({0}) has no GGUF form here; linear, yarn and Llama 3.1&apos;s scaling are written.</source>
        <translation>该模型的 RoPE 缩放方式（{0}）在这里没有 GGUF 形式；只能写出 linear、yarn 和 Llama 3.1 的缩放方式。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="650"/>
        <source>The model&apos;s tokenizer is of type {0}; GGUF files are written for BPE tokenizers (byte-level or SentencePiece-style).</source>
        <translation>模型的分词器类型是 {0}；GGUF 文件只支持 BPE 分词器（字节级或 SentencePiece 风格）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="653"/>
        <source>The weights hold a tensor {0} that a plain {1} model does not have, so the model has no GGUF form here.</source>
        <translation>权重中有普通 {1} 模型所没有的张量 {0}，因此该模型在这里没有 GGUF 形式。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="656"/>
        <source>The weights have no token embedding (model.embed_tokens.weight). Export the model again.</source>
        <translation>权重中没有词元嵌入（model.embed_tokens.weight）。请重新导出模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="658"/>
        <source>{0} already exists; a GGUF file is never overwritten. Choose another name.</source>
        <translation>{0} 已存在；GGUF 文件从不覆盖已有文件。请另选一个名称。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="660"/>
        <source>The tokenizer has {0} tokens but the embedding has {1} rows: the folder&apos;s tokenizer does not belong to its weights.</source>
        <translation>分词器有 {0} 个词元，而嵌入有 {1} 行：文件夹中的分词器与其权重不匹配。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="664"/>
        <source>Model type {0} is not supported. Workbench fine-tunes ERNIE 4.5, Qwen2, Qwen3, Llama and Gemma 3 models (dense, text only). Choose a model of one of these families.</source>
        <translation>不支持模型类型 {0}。Workbench 可以微调 ERNIE 4.5、Qwen2、Qwen3、Llama 和 Gemma 3 模型（稠密、纯文本）。请选择这些系列之一的模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="667"/>
        <source>The model folder {0} does not exist. Choose an existing folder.</source>
        <translation>模型文件夹 {0} 不存在。请选择一个已有的文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="669"/>
        <source>{0} is a file, not a folder. Choose the folder that holds config.json and the weights.</source>
        <translation>{0} 是文件，不是文件夹。请选择包含 config.json 和权重的文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="672"/>
        <source>The model folder {0} only has pickle-based weight files ({1}). Loading them can run arbitrary code, so Workbench does not load them. Convert the model to safetensors, then choose it again.</source>
        <translation>模型文件夹 {0} 中只有基于 pickle 的权重文件（{1}）。加载它们可能执行任意代码，因此 Workbench 不会加载。请把模型转换为 safetensors 格式后再选择。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="676"/>
        <source>The weights in {0} do not match the model its config.json describes: {1} missing. The folder may be incomplete or hold a different model; copy it again.</source>
        <translation>{0} 中的权重与其 config.json 描述的模型不符：缺少 {1}。文件夹可能不完整，或装的是另一个模型；请重新复制。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="679"/>
        <source>The model in {0} could not be loaded ({1}). The folder may be incomplete or damaged; copy it again.</source>
        <translation>无法加载 {0} 中的模型（{1}）。文件夹可能不完整或已损坏；请重新复制。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="682"/>
        <source>The tokenizer in {0} cannot be loaded ({1}).</source>
        <translation>无法加载 {0} 中的分词器（{1}）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="684"/>
        <source>The tokenizer in {0} defines no end-of-sequence token, which training needs.</source>
        <translation>{0} 中的分词器没有定义训练所需的序列结束词元。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="686"/>
        <source>A quantised base model cannot be used here: {0}</source>
        <translation>此处无法使用量化的基础模型：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="688"/>
        <source>A quantised base model needs the precision float16 or bfloat16.</source>
        <translation>量化的基础模型需要 float16 或 bfloat16 精度。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="690"/>
        <source>{0} is not a folder on this computer, and the model hub ({1}) cannot be reached: this computer looks offline. Add a model you have with Add a model…, or get Gemma 3 270M, on the Train page.</source>
        <translation>{0} 不是本机上的文件夹，而且无法连接模型库（{1}）：本机似乎没有联网。请在“训练”页用“添加模型…”添加你已有的模型，或获取 Gemma 3 270M。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="694"/>
        <source>Downloading {0} from {1} failed ({2}). Check the model id, or choose a model folder on this computer.</source>
        <translation>从 {1} 下载 {0} 失败（{2}）。请检查模型 ID，或选择本机上的模型文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="697"/>
        <source>{0} could not be downloaded from {1}. Check the model id, or choose a model folder on this computer.</source>
        <translation>无法从 {1} 下载 {0}。请检查模型 ID，或选择本机上的模型文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="700"/>
        <source>Device {0} is not available on this computer (available: {1}). Choose one of those.</source>
        <translation>本机上没有设备 {0}（可用的有：{1}）。请从中选择一个。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="703"/>
        <source>The checkpoint weights in {0} cannot be read ({1}). The checkpoint may be incomplete; train the run again.</source>
        <translation>无法读取 {0} 中的检查点权重（{1}）。该检查点可能不完整；请重新训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="706"/>
        <source>The checkpoint in {0} does not fit this model: {1}. It was saved by another model or another version of the run; train again.</source>
        <translation>{0} 中的检查点与此模型不符：{1}。它是由其他模型或这次训练的其他版本保存的；请重新训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="709"/>
        <source>The weights of {0} do not load back as the model that saved them: on {1} validation rows their loss is {2} where the run measured {3} when it saved them. Their answers would be wrong, so they are not used. Resume the run, or train again.</source>
        <translation>{0} 的权重重新加载后与保存它们的模型不一致：在 {1} 行验证数据上，其损失为 {2}，而训练在保存时测得的是 {3}。它们给出的回答会是错的，因此不予使用。请恢复这次训练，或重新训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="717"/>
        <source>it refused the connection</source>
        <translation>它拒绝了连接</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="718"/>
        <source>the connection timed out</source>
        <translation>连接超时</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="719"/>
        <source>there is no route to it</source>
        <translation>没有通往它的网络路由</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="720"/>
        <source>the network is unreachable</source>
        <translation>网络不可达</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="721"/>
        <source>it closed the connection</source>
        <translation>它关闭了连接</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="722"/>
        <source>the connection was reset</source>
        <translation>连接被重置</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="725"/>
        <source>The name is not valid: use letters, digits, dots, underscores or dashes (at most 64), starting with a letter or digit.</source>
        <translation>名称无效：请使用字母、数字、“.”、“_”或“-”（最多 64 个），并以字母或数字开头。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="727"/>
        <source>The address is not valid: write it as ssh://user@host or ssh://user@host:port, with no password.</source>
        <translation>地址无效：请写成 ssh://用户@主机 或 ssh://用户@主机:端口，不要包含密码。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="729"/>
        <source>The devices are not valid: write cpu, or a device kind and numbers such as gpu:0,1 or npu:0.</source>
        <translation>设备无效：请写 cpu，或设备类型加编号，例如 gpu:0,1 或 npu:0。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="734"/>
        <source>The disk is full ({0}). Free some space, for example by deleting runs you no longer need, then try again. What was saved before is intact.</source>
        <translation>磁盘已满（{0}）。请腾出空间（例如删除不再需要的训练），然后重试。之前保存的内容完好无损。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="736"/>
        <source>The disk is full. Free some space, for example by deleting runs you no longer need, then try again. What was saved before is intact.</source>
        <translation>磁盘已满。请腾出空间（例如删除不再需要的训练），然后重试。之前保存的内容完好无损。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="739"/>
        <source>Workbench may not read or write this place ({0}). Choose a folder of your own (for example in your home folder), or ask the owner of this one for access, then try again.</source>
        <translation>Workbench 无权读写这个位置（{0}）。请选择你自己的文件夹（例如主文件夹中的），或向它的所有者申请权限，然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="742"/>
        <source>Workbench may not read or write this place. Choose a folder of your own (for example in your home folder), or ask the owner of this one for access, then try again.</source>
        <translation>Workbench 无权读写这个位置。请选择你自己的文件夹（例如主文件夹中的），或向它的所有者申请权限，然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="745"/>
        <source>A file or folder is not where it was expected ({0}). Check the path (a folder name may be taken by a file, or a folder may be missing), then try again.</source>
        <translation>文件或文件夹不在预期的位置（{0}）。请检查路径（文件夹名可能被某个文件占用，或缺少某个文件夹），然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="747"/>
        <source>A file or folder is not where it was expected. Check the path (a folder name may be taken by a file, or a folder may be missing), then try again.</source>
        <translation>文件或文件夹不在预期的位置。请检查路径（文件夹名可能被某个文件占用，或缺少某个文件夹），然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="750"/>
        <source>A file could not be read or written ({0}): {1}. Check that it exists, that you may open it and that the disk is not full, then try again.</source>
        <translation>无法读写文件（{0}）：{1}。请确认它存在、你有权打开它且磁盘未满，然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="752"/>
        <source>A file could not be read or written: {1}. Check that it exists, that you may open it and that the disk is not full, then try again.</source>
        <translation>无法读写文件：{1}。请确认它存在、你有权打开它且磁盘未满，然后重试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="757"/>
        <source>commas</source>
        <translation>逗号</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="758"/>
        <source>tabs</source>
        <translation>制表符</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="759"/>
        <source>semicolons</source>
        <translation>分号</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="760"/>
        <source>vertical bars</source>
        <translation>竖线</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="763"/>
        <source>test rows</source>
        <translation>测试数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="764"/>
        <source>validation rows</source>
        <translation>验证数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="765"/>
        <source>training rows</source>
        <translation>训练数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="768"/>
        <source>The built-in model starts untrained, so the model it started from answers at random: it is not worth comparing with. The baseline beside the results is the comparison.</source>
        <translation>内置模型从零开始训练，它起步时的模型只会随机作答，不值得对比。结果旁的基线就是对照。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="771"/>
        <source>A multi-label model has no base model to compare with (its head is trained from scratch); the baseline beside the results is the comparison.</source>
        <translation>多标签模型没有可对比的基础模型（它的分类头是从零开始训练的）；结果旁的基线就是对照。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="774"/>
        <source>A classification head is trained from scratch with the run, so the model it started from has no head to compare with; the baseline beside the results is the comparison.</source>
        <translation>分类头是随这次训练从零开始训练的，起步时的模型没有分类头可供对比；结果旁的基线就是对照。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="779"/>
        <source>The built-in classifier has nothing for int8 to quantise: its weights are tables of character n-gram embeddings, and its linear layers hold under 1 % of them. Export it without the 8-bit (int8) model: its static model is the one to ship.</source>
        <translation>内置分类器没有可做 int8 量化的部分：它的权重是字符 n 元组嵌入表，线性层只占不到 1%。请不带 8 位（int8）模型导出：应发布的是它的静态图模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="785"/>
        <source>The built-in classifier has no GGUF form: llama.cpp and ollama run language models, and this is an n-gram classifier with a classification head. Untick GGUF and export again.</source>
        <translation>内置分类器没有 GGUF 形式：llama.cpp 和 ollama 运行的是语言模型，而它是带分类头的 n 元组分类器。请取消勾选 GGUF 后重新导出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="788"/>
        <source>A model with a classification head has no GGUF form: llama.cpp and ollama run language models that write text, and this one answers a probability for each of the project&apos;s labels. Untick GGUF and export again: its static model (and ONNX) carry the head, and predict.py and serve.py run it.</source>
        <translation>带分类头的模型没有 GGUF 形式：llama.cpp 和 ollama 运行的是生成文本的语言模型，而此模型为项目的每个标签给出一个概率。请取消勾选 GGUF 后重新导出：它的静态图模型（以及 ONNX）包含分类头，可由 predict.py 和 serve.py 运行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="794"/>
        <source>The Paddle Inference model</source>
        <translation>飞桨推理模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="795"/>
        <source>The reloaded merged model</source>
        <translation>重新加载的合并模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="810"/>
        <source>Cleaning step “{0}”</source>
        <translation>清洗步骤“{0}”</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="811"/>
        <source>Cleaning step {0} ({1})</source>
        <translation>清洗步骤 {0}（{1}）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="824"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="835"/>
        <source>{0} is not a text file Workbench can read: it looks like a {1} file.</source>
        <translation>{0} 不是 Workbench 能读取的文本文件：它看起来是 {1} 文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="838"/>
        <source>{0} is not a text file Workbench can read: it holds binary data, or text in an encoding that could not be recognised.</source>
        <translation>{0} 不是 Workbench 能读取的文本文件：它包含二进制数据，或者是无法识别编码的文本。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="841"/>
        <source>Workbench reads tables of text (CSV, TSV, or any text file with one row a line, whatever its suffix), Excel workbooks, JSON or JSON Lines, Parquet and TFRecord files. Check that you picked the right file, or save the data as CSV UTF-8 in the program that made it and import that file.</source>
        <translation>Workbench 能读取文本表格（CSV、TSV，或任何每行一条记录的文本文件，不论后缀）、Excel 工作簿、JSON 或 JSON Lines、Parquet 和 TFRecord 文件。请确认选对了文件，或在生成它的程序中把数据另存为 CSV UTF-8 后再导入。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="849"/>
        <source>Server {0} ({1}) is not known to this computer yet, so nothing was sent. It presents the key {2}. If your administrator confirms that fingerprint, accept it once with: {3}</source>
        <translation>本机还不认识服务器 {0}（{1}），因此没有发送任何内容。它出示的密钥是 {2}。如果管理员确认这个指纹无误，请运行一次以下命令接受它：{3}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="853"/>
        <source>Server {0} ({1}) is not known to this computer yet, so nothing was sent. If your administrator confirms its key fingerprint, accept it once with: {2}</source>
        <translation>本机还不认识服务器 {0}（{1}），因此没有发送任何内容。如果管理员确认了它的密钥指纹，请运行一次以下命令接受它：{2}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="881"/>
        <source>{0} returns outputs of shape {1} where the trained model returns {2}: the graph was traced wrongly.</source>
        <translation>{0}输出的形状是 {1}，而训练所得模型输出的形状是 {2}：计算图转换有误。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="885"/>
        <source>{0} returns values that are not finite (NaN or infinite) where the trained model&apos;s are finite: an operator converts incorrectly.</source>
        <translation>{0}输出了非有限值（NaN 或无穷大），而训练所得模型的输出都是有限值：某个算子转换有误。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="889"/>
        <source>{0} differs from the trained model by up to {1} on outputs of scale {2}, a relative difference of {3}.</source>
        <translation>{0}与训练所得模型的差异最大为 {1}（输出的量级为 {2}），相对差异为 {3}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="893"/>
        <source>That is {0} times the {1} that fp32 rounding explains for this model&apos;s size.</source>
        <translation>这是该规模模型的 fp32 舍入误差所能解释的 {1} 的 {0} 倍。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="896"/>
        <source>It picks another most likely token at {0} of {1} positions where the trained model&apos;s choice is clear.</source>
        <translation>在训练所得模型选择明确的 {1} 个位置中，它有 {0} 处选了另一个最可能的词元。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="899"/>
        <source>This is not rounding: an operator of the exported graph computes something else than the trained model (report it with the model family and the Paddle version).</source>
        <translation>这不是舍入误差：导出计算图中的某个算子与训练所得模型的计算结果不一致（请连同模型系列和 Paddle 版本一起报告此问题）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="902"/>
        <source>So nothing was exported.</source>
        <translation>因此没有导出任何内容。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/error_texts.py" line="910"/>
        <source>There are no pairs of answers to tune on yet. Choose between two answers, rewrite an answer rated bad, or rate good and bad answers to the same question.</source>
        <translation>还没有可用于调优的回答对。请在两个回答中做选择、改写评为差的回答，或对同一问题的回答分别评为好和差。</translation>
    </message>
</context>
<context>
    <name>EvaluatePage</name>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="474"/>
        <source>baseline {0}; {1}</source>
        <translation>基线 {0}；{1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="55"/>
        <source>The fine-tuned model beats a simple word-statistics baseline by {0} {1} ({2} vs {3}).</source>
        <translation>微调模型比简单的词频统计基线高 {0} {1}（{2} 对 {3}）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="61"/>
        <source>The fine-tuned model does not beat a simple word-statistics baseline: {1} {2} vs {3}, {0} lower.</source>
        <translation>微调模型没有超过简单的词频统计基线：{1} {2} 对 {3}，低 {0}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="67"/>
        <source>The fine-tuned model beats a simple retrieval baseline by {0} {1} ({2} vs {3}).</source>
        <translation>微调模型比简单的检索基线高 {0} {1}（{2} 对 {3}）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="72"/>
        <source>The fine-tuned model does not beat a simple retrieval baseline: {1} {2} vs {3}, {0} lower.</source>
        <translation>微调模型没有超过简单的检索基线：{1} {2} 对 {3}，低 {0}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="14"/>
        <source>test</source>
        <translation>测试</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="15"/>
        <source>validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="16"/>
        <source>training</source>
        <translation>训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="23"/>
        <source>full fine-tuning</source>
        <translation>全量微调</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="24"/>
        <source>LoRA</source>
        <translation>LoRA</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="124"/>
        <source>Accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="125"/>
        <source>Macro F1</source>
        <translation>宏平均 F1</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="126"/>
        <source>Macro F1 of the network alone</source>
        <translation>仅神经网络部分的宏平均 F1</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="127"/>
        <source>Micro F1</source>
        <translation>微平均 F1</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="128"/>
        <source>Whole label set right</source>
        <translation>标签集完全正确</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="129"/>
        <source>Hamming loss</source>
        <translation>汉明损失</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="136"/>
        <source>Preference accuracy</source>
        <translation>偏好准确率</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="137"/>
        <source>Chosen answer more likely</source>
        <translation>选中回答的似然更高</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="138"/>
        <source>Reward margin</source>
        <translation>奖励差值</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="139"/>
        <source>Reward of the chosen answers</source>
        <translation>选中回答的奖励</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="140"/>
        <source>Reward of the rejected answers</source>
        <translation>落选回答的奖励</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="435"/>
        <location filename="../../workbench/gui/pages/run_text.py" line="130"/>
        <source>ROUGE-L</source>
        <translation>ROUGE-L</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="131"/>
        <source>BLEU</source>
        <translation>BLEU</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="132"/>
        <source>Exact match</source>
        <translation>完全一致</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="133"/>
        <source>Loss on the answers</source>
        <translation>答案部分的损失</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="134"/>
        <source>Perplexity</source>
        <translation>困惑度</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="30"/>
        <source>share of test rows labelled right</source>
        <translation>测试数据中标签判断正确的比例</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="31"/>
        <source>balance of precision and recall, averaged over labels</source>
        <translation>精确率与召回率的平衡，按标签平均</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="32"/>
        <source>F1 over every label given or missed</source>
        <translation>按每个给出或漏掉的标签计算的 F1</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="33"/>
        <source>rows whose labels are exactly right</source>
        <translation>标签完全正确的行所占比例</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="34"/>
        <source>share of wrong yes/no label decisions; lower is better</source>
        <translation>逐标签是/否判断出错的比例；越低越好</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="35"/>
        <source>overlap with the reference answers (0–1)</source>
        <translation>与参考答案的重合度（0–1）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="36"/>
        <source>n-gram match with the references (0–100)</source>
        <translation>与参考答案的 n 元组匹配度（0–100）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="37"/>
        <source>answers identical to the reference</source>
        <translation>与参考答案完全相同的比例</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="38"/>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="39"/>
        <source>lower is better</source>
        <translation>越低越好</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="58"/>
        <source>The fine-tuned model matches a simple word-statistics baseline: {1} {2} vs {3}.</source>
        <translation>微调模型与简单的词频统计基线持平：{1} {2} 对 {3}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/words.py" line="70"/>
        <source>The fine-tuned model matches a simple retrieval baseline: {1} {2} vs {3}.</source>
        <translation>微调模型与简单的检索基线持平：{1} {2} 对 {3}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="92"/>
        <source>test rows</source>
        <translation>测试数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="93"/>
        <source>validation rows</source>
        <translation>验证数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="94"/>
        <source>Compare with the base model</source>
        <translation>与基础模型对比</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="96"/>
        <source>Evaluate</source>
        <translation>评估</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="99"/>
        <source>Open the report</source>
        <translation>打开报告</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="100"/>
        <source>The evaluation&apos;s HTML report (figures, best and worst samples), in your web browser</source>
        <translation>在网页浏览器中打开评估的 HTML 报告（图表、最好和最差的样本）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="110"/>
        <source>Copy the report&apos;s path</source>
        <translation>复制报告的路径</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="112"/>
        <source>Run</source>
        <translation>训练运行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="114"/>
        <source>on</source>
        <translation>数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="140"/>
        <source>Wrong only</source>
        <translation>只看错误</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="183"/>
        <source>Results</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="185"/>
        <source>Playground</source>
        <translation>试用</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="186"/>
        <source>Compare answers</source>
        <translation>比较回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="187"/>
        <source>Feedback</source>
        <translation>反馈</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="189"/>
        <source>Apply to a file</source>
        <translation>应用到文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="192"/>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="229"/>
        <source>(no finished run yet: train one on the Train page)</source>
        <translation>（还没有完成的训练：请先在“训练”页训练一次）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="270"/>
        <source>The built-in model starts untrained, so the model it started from answers at random: the baseline beside the results is the comparison.</source>
        <translation>内置模型从未训练的状态开始，它的起始模型只会随机作答：结果旁的基线就是对照。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="272"/>
        <source>A multi-label model&apos;s head is trained from scratch, so there is no base model to compare with: the baseline beside the results is the comparison.</source>
        <translation>多标签模型的分类头从零开始训练，没有可对比的基础模型：结果旁的基线就是对照。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="274"/>
        <source>A classification head is trained from scratch with the run, so the model it started from has no head to compare with: the baseline beside the results is the comparison.</source>
        <translation>分类头随本次运行从零开始训练，起始模型没有分类头可供比较：结果旁的简单基线就是比较对象。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="276"/>
        <source>Also score the model the run started from on the same rows.</source>
        <translation>同时在相同的数据行上评估本次训练的起始模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="291"/>
        <source>Evaluating {0} in a separate process…</source>
        <translation>正在独立进程中评估 {0}…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="308"/>
        <source>Evaluating: {0}…</source>
        <translation>正在评估：{0}…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="313"/>
        <source>Evaluation finished.</source>
        <translation>评估完成。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="359"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="359"/>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="376"/>
        <source>This run has not been evaluated yet. Click Evaluate: the model answers every test row it never saw during training, and the results appear here.</source>
        <translation>这次训练还没有评估。点击“评估”：模型会回答训练时从未见过的每一条测试数据，结果将显示在这里。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="347"/>
        <source>The evaluation results could not be read: {0}</source>
        <translation>无法读取评估结果：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="380"/>
        <source>There is no run yet. Train one on the Train page; once it has finished, evaluate it here: the model answers every test row it never saw during training.</source>
        <translation>还没有任何训练。请先在“训练”页训练一次；训练完成后在这里评估：模型会回答训练时从未见过的每一条测试数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="383"/>
        <source>A run is training on the Train page. Once it has finished, it appears here to be evaluated.</source>
        <translation>“训练”页上有一次训练正在进行。训练完成后，它会出现在这里供评估。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="385"/>
        <source>No run has finished with a model to evaluate. Train one on the Train page (a stopped run can be resumed there); once it has finished, evaluate it here.</source>
        <translation>还没有哪次训练完成并留下可评估的模型。请在“训练”页训练一次（已停止的训练可在那里恢复）；训练完成后在这里评估。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="399"/>
        <source>No program opened the report. It is the file {0}; open it in a web browser.</source>
        <translation>没有程序打开报告。报告文件是 {0}，请用网页浏览器打开。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="434"/>
        <source>expected</source>
        <translation>参考答案</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="434"/>
        <source>model&apos;s answer</source>
        <translation>模型的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="434"/>
        <source>template&apos;s prompt + text</source>
        <translation>模板提示词 + 文本</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="434"/>
        <source>input</source>
        <translation>输入</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="435"/>
        <source>correct</source>
        <translation>正确</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="435"/>
        <source>confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="436"/>
        <source>exact match</source>
        <translation>是否完全一致</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="438"/>
        <source>your rating</source>
        <translation>您的评分</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="448"/>
        <source>The mean of each label&apos;s F1.</source>
        <translation>各标签 F1 的平均值。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="449"/>
        <source>The mean of each label&apos;s F1 over the {0} of {1} labels that have a test row or were given by the model. A label absent from the test rows and never given is left out, not counted as 0.</source>
        <translation>在 {1} 个标签中，对测试集中出现过或模型给出过的 {0} 个标签求 F1 的平均值。测试集中没有且模型从未给出的标签不计入平均，而不是按 0 计算。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="453"/>
        <source>{0} ({1} of {2} labels)</source>
        <translation>{0}（{2} 个标签中的 {1} 个）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="471"/>
        <source>base model {0}; {1}</source>
        <translation>基础模型 {0}；{1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="491"/>
        <source>Rows scored against your corrected label in the samples: {0} (marked). The figures above keep the labels this evaluation used; they count your corrections once a run trained with them is evaluated.</source>
        <translation>样本中按你更正后的标签判定的行：{0}（已标出）。上方的指标仍按本次评估所用的标签计算；用包含你的更正的数据训练一次并评估后，指标才会计入这些更正。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="506"/>
        <source>{0} of {1} rows</source>
        <translation>{1} 行中的 {0} 行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="292"/>
        <source>Evaluating {0}</source>
        <translation>正在评估 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="184"/>
        <source>Samples (the answers side by side)</source>
        <translation>逐条结果（各个答案对照）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="296"/>
        <source>Evaluation cancelled.</source>
        <translation>评估已取消。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="306"/>
        <source>Evaluating: {0}, {1} of {2} rows</source>
        <translation>正在评估：{0}，第 {1} 行，共 {2} 行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="436"/>
        <source>answer before tuning</source>
        <translation>微调前的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="437"/>
        <source>correct before tuning</source>
        <translation>微调前正确</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="437"/>
        <source>ROUGE-L before tuning</source>
        <translation>微调前 ROUGE-L</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="438"/>
        <source>baseline&apos;s answer</source>
        <translation>基线的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/page.py" line="441"/>
        <source>P({0})</source>
        <translation>P({0})</translation>
    </message>
</context>
<context>
    <name>ExportPage</name>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="42"/>
        <source>Paddle Inference (static graph, for servers)</source>
        <translation>飞桨推理模型（静态图，用于服务器部署）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="43"/>
        <source>Merged weights (safetensors, for further training)</source>
        <translation>合并后的权重（safetensors，可继续训练）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="44"/>
        <source>ONNX (for ONNX Runtime)</source>
        <translation>ONNX（用于 ONNX Runtime）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="45"/>
        <source>GGUF (for llama.cpp and ollama)</source>
        <translation>GGUF（用于 llama.cpp 和 ollama）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="52"/>
        <source>Linux x86-64, Python 3.11 (the Docker image)</source>
        <translation>Linux x86-64，Python 3.11（Docker 镜像）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="53"/>
        <source>Linux ARM64, Python 3.11 (the Docker image on ARM)</source>
        <translation>Linux ARM64，Python 3.11（ARM 上的 Docker 镜像）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="54"/>
        <source>Windows x86-64, Python 3.11</source>
        <translation>Windows x86-64，Python 3.11</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="55"/>
        <source>macOS 14 or later on Apple silicon, Python 3.11</source>
        <translation>macOS 14 或更高版本（Apple 芯片），Python 3.11</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="56"/>
        <source>This computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="82"/>
        <source>Static model {0} ms per request</source>
        <translation>静态图模型每次请求 {0} 毫秒</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="85"/>
        <source>{0} samples/s at batch {1}</source>
        <translation>批大小 {1} 时每秒 {0} 条</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="89"/>
        <source>CPU with oneDNN</source>
        <translation>CPU（使用 oneDNN）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="90"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="92"/>
        <source>{0} threads</source>
        <translation>{0} 个线程</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="111"/>
        <source>identical</source>
        <translation>完全一致</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="113"/>
        <source>largest difference {0}% of the largest output</source>
        <translation>最大差异为最大输出的 {0}%</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="115"/>
        <source>largest difference {0}</source>
        <translation>最大差异 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="120"/>
        <source>verified</source>
        <translation>已核对</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="121"/>
        <source>not made</source>
        <translation>未生成</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="122"/>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="135"/>
        <source>accuracy {0} → {1} ({2:+.1f} points)</source>
        <translation>准确率 {0} → {1}（{2:+.1f} 个百分点）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="138"/>
        <source>perplexity {0} → {1}</source>
        <translation>困惑度 {0} → {1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="143"/>
        <source>same answer as the full model on {0} of the rows</source>
        <translation>{0} 的数据与完整精度模型答案相同</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="146"/>
        <source>weights {0} MB instead of {1} MB</source>
        <translation>权重 {0} MB（原为 {1} MB）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="161"/>
        <source>model card: evaluation figures, checks, how to use it</source>
        <translation>模型卡：评估指标、核对结果和使用方法</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="162"/>
        <source>the bundle&apos;s description and every check&apos;s figures</source>
        <translation>包的说明和每项核对的数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="163"/>
        <source>stand-alone prediction script (CSV/JSONL in, predictions out)</source>
        <translation>独立的预测脚本（输入 CSV/JSONL，输出预测）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="165"/>
        <source>every package they need, exact versions with hashes</source>
        <translation>所需的全部软件包，精确版本并带哈希值</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="166"/>
        <source>those packages&apos; files, to install without internet</source>
        <translation>这些软件包的文件，可在无网络时安装</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="171"/>
        <location filename="../../workbench/gui/pages/export/page.py" line="581"/>
        <source>8-bit (int8) static model</source>
        <translation>8 位（int8）静态图模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="172"/>
        <source>tokenizer files</source>
        <translation>分词器文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="173"/>
        <source>prediction service (HTTP, OpenAI-compatible for answers)</source>
        <translation>预测服务（HTTP；生成式任务兼容 OpenAI 接口）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="174"/>
        <source>the model code predict.py and serve.py share</source>
        <translation>predict.py 与 serve.py 共用的模型代码</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="179"/>
        <source>builds a container image that runs serve.py</source>
        <translation>构建运行 serve.py 的容器镜像</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="180"/>
        <source>ONNX step of generation with a key/value cache</source>
        <translation>带键值缓存的 ONNX 逐步生成模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="218"/>
        <source>Run</source>
        <translation>训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="220"/>
        <source>Formats</source>
        <translation>导出格式</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="238"/>
        <source>Downloaded once now, for the system chosen below; then &apos;pip install --no-index --find-links wheels -r requirements.lock&apos; needs no network there, and the Dockerfile installs from them.</source>
        <translation>现在按下方所选系统下载一次；之后在该系统上“pip install --no-index --find-links wheels -r requirements.lock”无需网络，Dockerfile 也从这些文件安装。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="247"/>
        <source>The system requirements.lock (the hashes of its packages&apos; files) and wheels/ are for. The bundle&apos;s Dockerfile builds a Linux image, so Linux x86-64 is the default.</source>
        <translation>requirements.lock（其中各软件包文件的哈希值）和 wheels/ 所针对的系统。包中的 Dockerfile 构建 Linux 镜像，因此默认为 Linux x86-64。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="250"/>
        <source>Packages for</source>
        <translation>软件包适用于</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="275"/>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="281"/>
        <source>Copy the bundle folder&apos;s path</source>
        <translation>复制导出文件夹的路径</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="324"/>
        <source>Checks</source>
        <translation>核对结果</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="391"/>
        <source>This export needs about {0} GB of memory.</source>
        <translation>本次导出约需 {0} GB 内存。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="394"/>
        <source>This export needs about {0} GB of memory, and only {1} GB is free now: close other programs, or tick fewer formats.</source>
        <translation>本次导出约需 {0} GB 内存，而当前仅有 {1} GB 可用：请关闭其他程序，或少勾选几种格式。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="402"/>
        <source>Also an 8-bit (int8) model: smaller and faster on processors, slightly less exact</source>
        <translation>同时导出 8 位（int8）模型：体积更小、在处理器上更快，精度略低</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="428"/>
        <source>No GGUF file for this run: a model with a classification head writes no text</source>
        <translation>此运行没有 GGUF 文件：带分类头的模型不生成文本</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="429"/>
        <source>llama.cpp and ollama run language models that write text; this model answers a probability for each of the project&apos;s labels, which has no GGUF form. Its static model (and ONNX) carry the head, and predict.py and serve.py run it.</source>
        <translation>llama.cpp 和 ollama 运行的是生成文本的语言模型；此模型为项目的每个标签给出一个概率，没有 GGUF 形式。它的静态模型（以及 ONNX）带有分类头，由 predict.py 和 serve.py 运行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="434"/>
        <source>No GGUF file for this run: the built-in classifier is not a language model</source>
        <translation>此运行不提供 GGUF 文件：内置分类器不是语言模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="435"/>
        <source>llama.cpp and ollama run language models; the built-in classifier is an n-gram classifier with a classification head, which has no GGUF form. Its static model is the one to ship.</source>
        <translation>llama.cpp 和 ollama 运行的是语言模型；内置分类器是带分类头的字符 n 元组分类器，没有 GGUF 形式。请发布它的静态模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="647"/>
        <source>No program opened the bundle&apos;s folder. It is {0}; open it in a file manager, or copy its path.</source>
        <translation>没有程序打开导出文件夹。它是 {0}，请用文件管理器打开，或复制它的路径。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="236"/>
        <source>Also the files of every package it needs (wheels/, about 240 MB), so it installs on a computer without internet</source>
        <translation>同时附带所需全部软件包的文件（wheels/，约 240 MB），以便在无网络的电脑上安装</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="71"/>
        <source>Per request, the exported static model takes {0} ms and the trained model run directly {1} ms: the static model is {2}× as fast</source>
        <translation>每次请求，导出的静态图模型用时 {0} 毫秒，直接运行训练所得模型用时 {1} 毫秒：静态图模型的速度是它的 {2} 倍</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="76"/>
        <source>Per request, the exported static model takes {0} ms and the trained model run directly {1} ms: the static model is slower, {2}× as long</source>
        <translation>每次请求，导出的静态图模型用时 {0} 毫秒，直接运行训练所得模型用时 {1} 毫秒：静态图模型更慢，用时是它的 {2} 倍</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="175"/>
        <source>the service&apos;s batching of concurrent requests</source>
        <translation>服务对并发请求的批处理</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="176"/>
        <source>what a request to the service may contain</source>
        <translation>服务请求可以包含的内容</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="177"/>
        <source>how predict.py reads files: the application&apos;s own rules</source>
        <translation>predict.py 读取文件的方式：与应用程序相同的规则</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="178"/>
        <source>how predict.py tells a header line from data</source>
        <translation>predict.py 区分表头行与数据的方式</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="253"/>
        <source>The bundle holds the model, a stand-alone predict.py, its requirements and a model card with the evaluation figures. Every format is checked against the trained model.</source>
        <translation>导出包含模型、独立的 predict.py 预测脚本、依赖清单以及附带评估结果的模型说明。每种格式都会与训练所得的模型逐一核对。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="265"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="268"/>
        <source>Open the bundle&apos;s folder</source>
        <translation>打开导出文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="284"/>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="284"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="284"/>
        <source>Check against the trained model</source>
        <translation>与训练所得模型的核对</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="285"/>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="302"/>
        <source>File or folder</source>
        <translation>文件或文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="302"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="302"/>
        <source>What it is</source>
        <translation>说明</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="314"/>
        <source>The export command&apos;s messages appear here while it runs.</source>
        <translation>导出命令运行时的消息会显示在这里。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="325"/>
        <source>Bundle contents</source>
        <translation>包内容</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="326"/>
        <source>Export log</source>
        <translation>导出日志</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="358"/>
        <source>(no finished run yet: train one on the Train page)</source>
        <translation>（还没有完成的训练：请先在“训练”页训练一次）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="401"/>
        <source>No 8-bit (int8) model for this run: the built-in classifier has nothing to quantise</source>
        <translation>此运行不提供 8 位（int8）模型：内置分类器没有可量化的部分</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="414"/>
        <source>The built-in classifier has nothing for int8 to quantise: its weights are tables of character n-gram embeddings, and its linear layers hold under 1 % of them. Its static model is the one to ship.</source>
        <translation>内置分类器没有可做 int8 量化的部分：它的权重是字符 n 元组嵌入表，线性层只占不到 1%。请发布它的静态模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="417"/>
        <source>Weight-only int8 of the model&apos;s linear layers, checked against the fp32 model.</source>
        <translation>对模型线性层做仅权重 int8 量化，并与 fp32 模型核对。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="464"/>
        <source>Exported earlier into {0}.</source>
        <translation>之前已导出到 {0}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="487"/>
        <source>No format chosen</source>
        <translation>未选择导出格式</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="487"/>
        <source>Tick at least one format to export.</source>
        <translation>请至少勾选一种导出格式。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="492"/>
        <source>Exporting {0} in a separate process…</source>
        <translation>正在独立进程中导出 {0}…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="522"/>
        <source>Exporting: {0}</source>
        <translation>正在导出：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="532"/>
        <location filename="../../workbench/gui/pages/export/page.py" line="533"/>
        <source>The export printed no result.</source>
        <translation>导出命令没有输出结果。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="533"/>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="537"/>
        <source>Exported into {0}.</source>
        <translation>已导出到 {0}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="585"/>
        <source>same answers as the evaluation on {0} of {1} test rows</source>
        <translation>{1} 条测试数据中有 {0} 条与评估结果相同</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="587"/>
        <source>predict.py (run as a user would)</source>
        <translation>predict.py（按用户的方式运行）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="602"/>
        <source>&lt;b&gt;Speed&lt;/b&gt; (median per request on this computer): {0}</source>
        <translation>&lt;b&gt;速度&lt;/b&gt;（本机上每次请求的中位数）：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="605"/>
        <source>Processor: {0}; measured on {1} requests, one at a time.</source>
        <translation>处理器：{0}；逐条测量了 {1} 次请求。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="616"/>
        <source>{0} packages at the exported versions, with hashes</source>
        <translation>{0} 个软件包，固定为导出时的版本，带哈希值</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="618"/>
        <source>{0} packages at the exported versions; no hashes: {1}</source>
        <translation>{0} 个软件包，固定为导出时的版本；无哈希值：{1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="621"/>
        <source>; for {0}</source>
        <translation>；适用于 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="625"/>
        <source>; wheels/: {0} files, {1} MB, installs without network (checked)</source>
        <translation>；wheels/：{0} 个文件，{1} MB，可无网络安装（已检查）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="628"/>
        <source>Requirements</source>
        <translation>依赖</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="498"/>
        <source>Exporting {0}</source>
        <translation>正在导出 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="164"/>
        <source>the packages predict.py and serve.py need</source>
        <translation>predict.py 和 serve.py 所需的软件包</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/export/page.py" line="555"/>
        <source>Export cancelled; nothing was written.</source>
        <translation>导出已取消，没有写入任何文件。</translation>
    </message>
</context>
<context>
    <name>FeedbackTab</name>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="38"/>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="44"/>
        <source>Run</source>
        <translation>训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="38"/>
        <source>Choices</source>
        <translation>选择</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="38"/>
        <source>Ties</source>
        <translation>判为平局</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="39"/>
        <source>Good</source>
        <translation>评为好</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="39"/>
        <source>Bad</source>
        <translation>评为差</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="39"/>
        <source>Better answers</source>
        <translation>更好的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="44"/>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="44"/>
        <source>Question</source>
        <translation>问题</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="45"/>
        <source>Answers judged</source>
        <translation>被评判的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="45"/>
        <source>Judgement</source>
        <translation>评判</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="46"/>
        <source>Your better answer</source>
        <translation>您写的更好回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="57"/>
        <source>Take back the selected judgements</source>
        <translation>撤回选中的评判</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="60"/>
        <source>Taking a judgement back leaves it in the project&apos;s records, marked as taken back: it no longer counts or trains.</source>
        <translation>撤回的评判仍保留在项目记录中，标记为已撤回：它不再计数，也不再用于训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="95"/>
        <source>No judgements yet. Rate the model&apos;s answers on the Samples or Playground tab, or compare two answers to a question: what you judge appears here.</source>
        <translation>还没有评判。请在“逐条结果”或“试用”标签页给模型的回答评分，或比较同一问题的两个回答：您的评判会显示在这里。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="98"/>
        <source>Judgements in force: {0}. Preference pairs they make to tune on: {1} ({2} from choices, {3} from better answers, {4} from good and bad answers to the same question).</source>
        <translation>当前有效的评判：{0} 条。它们构成可用于调优的偏好对 {1} 个（{2} 个来自选择，{3} 个来自更好的回答，{4} 个来自同一问题下评为好和差的回答）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="102"/>
        <source>Answers rated good with no bad answer to the same question beside them make no pair: {0}.</source>
        <translation>评为好、但同一问题下没有评为差的回答，不构成偏好对：{0} 个。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="109"/>
        <source>(no run)</source>
        <translation>（无训练）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="128"/>
        <source>answer 1 is better</source>
        <translation>回答 1 更好</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="128"/>
        <source>answer 2 is better</source>
        <translation>回答 2 更好</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="129"/>
        <source>a tie</source>
        <translation>平局</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="132"/>
        <source>good</source>
        <translation>好</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/feedback_tab.py" line="132"/>
        <source>bad</source>
        <translation>差</translation>
    </message>
</context>
<context>
    <name>FolderRow</name>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="38"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
</context>
<context>
    <name>JudgementRecorder</name>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="108"/>
        <source>Recording your judgement</source>
        <translation>正在记录您的评判</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="109"/>
        <source>The judgement was not recorded</source>
        <translation>评判未能记录</translation>
    </message>
</context>
<context>
    <name>LabelSetDialog</name>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="210"/>
        <source>The labels of this row</source>
        <translation>这一行的标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="221"/>
        <source>Tick the labels this row has. A row left with none is excluded from the next data version.</source>
        <translation>勾选这一行应有的标签。一个标签都不勾选的行会被排除在下一个数据版本之外。</translation>
    </message>
</context>
<context>
    <name>LabelsEditor</name>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="70"/>
        <source>Use the labels found in my data</source>
        <translation>使用我的数据中的标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="73"/>
        <source>Use the template&apos;s labels</source>
        <translation>使用模板的标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="81"/>
        <source>Map the label column to see its values.</source>
        <translation>映射标签列后，这里会显示它的取值。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="85"/>
        <source>Value in the data</source>
        <translation>数据中的取值</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="85"/>
        <source>Rows</source>
        <translation>行数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="85"/>
        <source>Maps to</source>
        <translation>对应标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="97"/>
        <source>Rename…</source>
        <translation>改名…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="98"/>
        <source>Give the selected label another name; the old name becomes one of its spellings.</source>
        <translation>给所选标签改名；旧名称成为它的另一种写法。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="100"/>
        <source>Merge…</source>
        <translation>合并…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="101"/>
        <source>Make the selected labels one label; the others become its spellings.</source>
        <translation>把所选标签合并为一个，其余的成为它的其他写法。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="103"/>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="313"/>
        <source>Exclude</source>
        <translation>排除</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="104"/>
        <source>Drop the rows of the selected labels (they are counted), or keep them again.</source>
        <translation>删除所选标签的行（会计数报告），或重新保留它们。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="106"/>
        <source>Name codes…</source>
        <translation>为代码命名…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="107"/>
        <source>Give code values such as 0, 1, 2 the label names they stand for.</source>
        <translation>为 0、1、2 这样的代码填写它们代表的标签名称。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="114"/>
        <source>Drop labels with fewer rows than</source>
        <translation>删除行数少于此值的标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="117"/>
        <source>enough for every split</source>
        <translation>够分到每个部分</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="118"/>
        <source>Counted after cleaning. By default a label needs one row for training, one for validation and one for testing.</source>
        <translation>按清洗后的行数计算。默认每个标签至少要有训练、验证、测试各一行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="124"/>
        <source>Several labels per row (multi-label)</source>
        <translation>每行可有多个标签（多标签）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="126"/>
        <source>A list cell, or labels separated by spaces, commas, 、 or semicolons in one cell, is the row&apos;s set of labels; the model then gives each label on its own.</source>
        <translation>列表单元格，或一个单元格中以空格、逗号、顿号或分号分隔的多个标签，即为该行的标签集合；模型会对每个标签分别作出判断。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="131"/>
        <source>Separator between labels:</source>
        <translation>标签分隔符：</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="133"/>
        <source>spaces, commas, 、 or ;</source>
        <translation>空格、逗号、顿号或分号</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="135"/>
        <source>The characters that separate the labels in one cell, taken exactly as typed (for example ; or |). Leave it empty to split on spaces, commas, 、 and semicolons. Set one when a label&apos;s own name holds one of those characters.</source>
        <translation>同一单元格中分隔各个标签的字符，按输入原样使用（例如 ; 或 |）。留空则按空格、逗号、顿号和分号拆分。标签名称本身含有这些字符时，请指定分隔符。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="149"/>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="160"/>
        <source>drop them (counted)</source>
        <translation>删除这些行（会计数报告）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="150"/>
        <source>keep the first label</source>
        <translation>保留第一个标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="159"/>
        <source>keep them as rows with no label</source>
        <translation>保留为无标签的行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="162"/>
        <source>In multi-label data a row may have none of the labels (most sentences of a case name no article). Kept, the model learns to give no label to such rows, and micro-F1 and subset accuracy count them.</source>
        <translation>多标签数据中一行可能不属于任何标签（案件中的大多数句子不涉及任何法条）。保留后，模型会学会对这类行不给出标签，微平均 F1 和完全匹配准确率也会计入这些行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="197"/>
        <source>not in the label set: rows dropped</source>
        <translation>不在标签集中：这些行会被删除</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="199"/>
        <source>{0} · excluded: rows dropped</source>
        <translation>{0} · 已排除：这些行会被删除</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="201"/>
        <source>{0} · fewer than {1} rows: dropped</source>
        <translation>{0} · 少于 {1} 行：会被删除</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="203"/>
        <source>{0} (another spelling)</source>
        <translation>{0}（另一种写法）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="231"/>
        <source>{0} of the {1} labels given in {2} rows are not in the template&apos;s label set. Your data has its own labels ({3}). Use them, or the rows cannot be trained on.</source>
        <translation>{2} 行中给出的 {1} 个标签里有 {0} 个不在模板的标签集中。你的数据有自己的标签（{3}）。请使用这些标签，否则这些行无法用于训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="236"/>
        <source>{0} of {1} rows have labels that are not in the template&apos;s label set. Your data has its own labels ({2}). Use them, or the rows cannot be trained on.</source>
        <translation>{1} 行中有 {0} 行的标签不在模板的标签集中。你的数据有自己的标签（{2}）。请使用这些标签，否则这些行无法用于训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="251"/>
        <source>the template&apos;s labels</source>
        <translation>模板的标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="251"/>
        <source>the labels found in the data</source>
        <translation>数据中的标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="252"/>
        <source>your own list</source>
        <translation>自定义列表</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="287"/>
        <source>{0} labels ({1}) · {2} values in {3} rows · {4} rows outside the label set</source>
        <translation>{0} 个标签（{1}）· {3} 行中有 {2} 种取值 · {4} 行不在标签集中</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="266"/>
        <source>{0} rows list several labels:</source>
        <translation>{0} 行列出了多个标签：</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="272"/>
        <source>{0} rows have no label:</source>
        <translation>{0} 行没有标签：</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="290"/>
        <source>{0} rows of excluded labels dropped</source>
        <translation>已删除 {0} 行被排除标签的数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="292"/>
        <source>{0} rows of labels with too few rows dropped</source>
        <translation>已删除 {0} 行样本过少标签的数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="294"/>
        <source>{0} labels ({1}) · {2} values given {3} times in {4} rows · {5} times outside the label set</source>
        <translation>{0} 个标签（{1}）· {2} 个取值在 {4} 行中共出现 {3} 次 · {5} 次不在标签集中</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="298"/>
        <source>excluded labels taken off {0} rows</source>
        <translation>已从 {0} 行中去掉被排除的标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="300"/>
        <source>labels with too few rows taken off {0} rows</source>
        <translation>已从 {0} 行中去掉样本过少的标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="302"/>
        <source>no row has {0}: left out of the project</source>
        <translation>数据中没有“{0}”的行：项目的标签中不含它</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="313"/>
        <source>Include again</source>
        <translation>重新保留</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="362"/>
        <source>Rename the label</source>
        <translation>标签改名</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="363"/>
        <source>New name for “{0}”:</source>
        <translation>“{0}”的新名称：</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="372"/>
        <source>Merge labels</source>
        <translation>合并标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/labels_editor.py" line="373"/>
        <source>Keep this label; the others become its spellings:</source>
        <translation>保留这个标签，其余的成为它的其他写法：</translation>
    </message>
</context>
<context>
    <name>Launcher</name>
    <message>
        <location filename="../../workbench/gui/app.py" line="71"/>
        <source>Workbench cannot open its window: the system library {0} is missing. Install the package {1} (sudo apt install {1} on Debian or Ubuntu), then start Workbench again.</source>
        <translation>Workbench 无法打开窗口：缺少系统库 {0}。请安装软件包 {1}（Debian 或 Ubuntu 上运行 sudo apt install {1}），然后重新启动 Workbench。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/app.py" line="76"/>
        <source>Workbench cannot open its window: the system library {0}, which Qt needs to draw on X11, is missing. Install the package that provides it, then start Workbench again.</source>
        <translation>Workbench 无法打开窗口：缺少 Qt 在 X11 上绘制界面所需的系统库 {0}。请安装提供该库的软件包，然后重新启动 Workbench。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/app.py" line="80"/>
        <source>Workbench cannot open its window: the system libraries {0}, which Qt needs to draw on X11, are missing.</source>
        <translation>Workbench 无法打开窗口：缺少 Qt 在 X11 上绘图所需的系统库 {0}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/app.py" line="84"/>
        <source>Install the packages {0} (sudo apt install {0} on Debian or Ubuntu).</source>
        <translation>请安装软件包 {0}（Debian 或 Ubuntu 上运行 sudo apt install {0}）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/app.py" line="87"/>
        <source>Install the packages that provide {0}.</source>
        <translation>请安装提供 {0} 的软件包。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/app.py" line="89"/>
        <source>Then start Workbench again.</source>
        <translation>然后重新启动 Workbench。</translation>
    </message>
</context>
<context>
    <name>LicenceDialog</name>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="163"/>
        <source>{0}: licence</source>
        <translation>{0}：许可条款</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="166"/>
        <source>&lt;b&gt;{0}&lt;/b&gt; is a pretrained model from Google, about 1 GB on disk once converted. It comes under the &lt;b&gt;{1}&lt;/b&gt;.</source>
        <translation>&lt;b&gt;{0}&lt;/b&gt; 是 Google 的预训练模型，转换后约占 1 GB 磁盘空间，适用 &lt;b&gt;{1}&lt;/b&gt;。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="182"/>
        <source>The full text comes with the package, which is installed after you accept, and is copied into the model&apos;s folder. It is also at {0}.</source>
        <translation>完整条款随软件包提供（接受后才安装），并会复制到模型文件夹中；也可在 {0} 查看。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="186"/>
        <source>The full text: {0}</source>
        <translation>完整条款：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="191"/>
        <source>I have read the {0} and accept them</source>
        <translation>我已阅读并接受 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="195"/>
        <source>Accept and get the model</source>
        <translation>接受并获取模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="204"/>
        <source>In short: commercial use, fine-tuning and sharing of the model and of models trained from it are allowed, under use restrictions (the Gemma Prohibited Use Policy); whoever passes the model or a model trained from it on must pass these terms on with it. The summary does not replace the text below.</source>
        <translation>简而言之：允许商业使用、微调以及分享该模型和由它训练出的模型，但须遵守使用限制（Gemma 禁止用途政策）；把该模型或由它训练出的模型提供给他人时，须同时附上这些条款。此摘要不能代替下面的条款全文。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="44"/>
        <location filename="../../workbench/gui/main_window.py" line="422"/>
        <source>Workbench</source>
        <translation>Workbench</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="192"/>
        <source>1  Template</source>
        <translation>1  模板</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="193"/>
        <source>2  Data</source>
        <translation>2  数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="194"/>
        <source>3  Train</source>
        <translation>3  训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="195"/>
        <source>4  Evaluate</source>
        <translation>4  评估</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="196"/>
        <source>5  Export</source>
        <translation>5  导出</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="202"/>
        <source>done</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="203"/>
        <source>training…</source>
        <translation>训练中…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="204"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="205"/>
        <source>needs data</source>
        <translation>需要数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="223"/>
        <source>Training: {0}</source>
        <translation>正在训练：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="264"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="265"/>
        <source>&amp;New project…</source>
        <translation>新建项目(&amp;N)…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="266"/>
        <source>&amp;Open project…</source>
        <translation>打开项目(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="267"/>
        <source>Open a &amp;sample project</source>
        <translation>打开示例项目(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="268"/>
        <source>&amp;Import data file…</source>
        <translation>导入数据文件(&amp;I)…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="269"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="272"/>
        <source>Open &amp;recent</source>
        <translation>最近的项目(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="279"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="287"/>
        <source>&amp;Tools</source>
        <translation>工具(&amp;T)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="288"/>
        <source>&amp;Environment…</source>
        <translation>运行环境(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="289"/>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="290"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="291"/>
        <source>&amp;About Workbench</source>
        <translation>关于 Workbench(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="307"/>
        <source>(none yet)</source>
        <translation>（暂无）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="322"/>
        <location filename="../../workbench/gui/main_window.py" line="336"/>
        <source>The project could not be opened</source>
        <translation>无法打开项目</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="329"/>
        <source>Open a project folder</source>
        <translation>打开项目文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="341"/>
        <source>New project…</source>
        <translation>新建项目…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="359"/>
        <source>The project could not be created</source>
        <translation>无法创建项目</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="388"/>
        <source>Preparing the sample project</source>
        <translation>正在准备示例项目</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="391"/>
        <source>Import a data file</source>
        <translation>导入数据文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="397"/>
        <source>Choose a template first</source>
        <translation>请先选择模板</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="398"/>
        <source>Data is imported into a project, and a project starts from a template. Pick a template and click “Use this template”, then drop the file again.</source>
        <translation>数据要导入到项目中，而项目从模板开始。请先选择一个模板并点击“使用此模板”，然后再拖入文件。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="421"/>
        <source>No project open: start from a template, or File &gt; Open a sample project</source>
        <translation>未打开项目：从模板开始，或使用“文件 &gt; 打开示例项目”</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="426"/>
        <source>Project {0} · {1} · {2}</source>
        <translation>项目 {0} · {1} · {2}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="427"/>
        <source>{0} – Workbench</source>
        <translation>{0} – Workbench</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="454"/>
        <source>Restart Workbench to use the new templates folder.</source>
        <translation>请重新启动 Workbench 以使用新的模板文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="462"/>
        <source>&lt;b&gt;Workbench&lt;/b&gt; version {0}&lt;br&gt;Fine-tune, evaluate and export language models on PaddlePaddle without writing code.&lt;br&gt;&lt;br&gt;Chinese text uses Noto Sans CJK (SIL Open Font License).</source>
        <translation>&lt;b&gt;Workbench&lt;/b&gt; 版本 {0}&lt;br&gt;无需编程，在飞桨上微调、评估和导出语言模型。&lt;br&gt;&lt;br&gt;中文显示使用 Noto Sans CJK 字体（SIL 开放字体许可证）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="467"/>
        <source>About Workbench</source>
        <translation>关于 Workbench</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="476"/>
        <source>Welcome to Workbench</source>
        <translation>欢迎使用 Workbench</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="477"/>
        <source>Would you like to open a sample project? It uses the financial news sentiment template, its sample data and the built-in model, which trains on this computer in a few minutes.</source>
        <translation>要打开一个示例项目吗？它使用“财经新闻情感分析”模板、示例数据和内置模型，在本机几分钟即可训练完成。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="479"/>
        <source>Open the sample project</source>
        <translation>打开示例项目</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="480"/>
        <source>Start empty</source>
        <translation>从空白开始</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="521"/>
        <source>Training is running</source>
        <translation>正在训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="522"/>
        <source>{0} is still training. Keep it training in the background (reopen the project to see it), or stop it now (it saves a checkpoint first, so it can be resumed)?</source>
        <translation>{0} 仍在训练。要让它在后台继续训练（重新打开项目即可查看），还是现在停止（会先保存检查点，之后可以恢复）？</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="524"/>
        <source>Keep training</source>
        <translation>继续在后台训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="525"/>
        <source>Stop training</source>
        <translation>停止训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/main_window.py" line="206"/>
        <source>last run failed</source>
        <translation>上次运行失败</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/app.py" line="118"/>
        <source>No Chinese font was found: Chinese text may show as boxes. Install one, e.g. the fonts-noto-cjk package.</source>
        <translation>未找到中文字体：中文可能显示为方框。请安装一种中文字体，例如 fonts-noto-cjk 软件包。</translation>
    </message>
</context>
<context>
    <name>MappingEditor</name>
    <message>
        <location filename="../../workbench/gui/pages/data/mapping_editor.py" line="30"/>
        <source>Tell Workbench which column of your file plays which part. Required parts are marked *.</source>
        <translation>告诉 Workbench 文件中的哪一列对应哪一部分。必填部分标有 *。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/mapping_editor.py" line="38"/>
        <source>Use the suggestion</source>
        <translation>采用建议</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/mapping_editor.py" line="39"/>
        <source>Maps the columns as suggested; Undo takes it back.</source>
        <translation>按建议对应各列；可用“撤销”取消。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/mapping_editor.py" line="65"/>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/mapping_editor.py" line="112"/>
        <source>+ no second column</source>
        <translation>+ 不加第二列</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/mapping_editor.py" line="78"/>
        <source>Read a second column with this one (a title and a question, say): its text follows on a new line.</source>
        <translation>与此列一起读取第二列（例如标题和问题）：第二列的文本另起一行接在后面。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/mapping_editor.py" line="122"/>
        <source>Import a data file first; then choose which column holds what.</source>
        <translation>请先导入数据文件，再选择每一列的用途。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/mapping_editor.py" line="129"/>
        <source>Fix the mapping above; cleaning and preparing wait for it.</source>
        <translation>请先修正上面的列对应关系，清洗和准备数据需要它。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/mapping_editor.py" line="131"/>
        <source>The mapping is complete.</source>
        <translation>列对应关系已完整。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/mapping_editor.py" line="138"/>
        <source>No column&apos;s name says what it holds; from the contents, Workbench suggests: {0}. Check it and confirm.</source>
        <translation>没有列名能说明各列的内容；根据内容，Workbench 建议：{0}。请检查后确认。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/mapping_editor.py" line="153"/>
        <source>map {0}</source>
        <translation>对应“{0}”</translation>
    </message>
</context>
<context>
    <name>ModelsPanel</name>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="33"/>
        <source>size unknown</source>
        <translation>大小未知</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="35"/>
        <source>{0:.1f}B parameters</source>
        <translation>{0:.1f}B 参数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="37"/>
        <source>{0:.0f}M parameters</source>
        <translation>{0:.0f}M 参数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="38"/>
        <source>{0:.0f}K parameters</source>
        <translation>{0:.0f}K 参数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="55"/>
        <source>its folder is missing</source>
        <translation>文件夹已不存在</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="144"/>
        <source>reading the file</source>
        <translation>读取文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="145"/>
        <source>converting the weights</source>
        <translation>转换权重</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="146"/>
        <source>building the tokenizer</source>
        <translation>生成分词器</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="147"/>
        <source>writing the model folder</source>
        <translation>写入模型文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="148"/>
        <source>copying the folder</source>
        <translation>复制文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="149"/>
        <source>installing the package</source>
        <translation>安装软件包</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="150"/>
        <source>assembling the model file</source>
        <translation>组装模型文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="228"/>
        <source>Add a model…</source>
        <translation>添加模型…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="229"/>
        <source>Register a model you have: a GGUF file (converted once) or a model folder with config.json, weights and tokenizer.</source>
        <translation>登记您已有的模型：GGUF 文件（转换一次）或包含 config.json、权重和分词器的模型文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="232"/>
        <source>A GGUF file…</source>
        <translation>GGUF 文件…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="233"/>
        <source>A model folder…</source>
        <translation>模型文件夹…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="235"/>
        <source>Get Gemma 3 270M</source>
        <translation>获取 Gemma 3 270M</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="236"/>
        <source>Install Google&apos;s Gemma 3 270M (multilingual, with Chinese) from the package registry and register it; its licence is shown first.</source>
        <translation>从软件包仓库安装 Google 的 Gemma 3 270M（多语言，支持中文）并登记；会先显示其许可条款。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="239"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="240"/>
        <source>Unregister the chosen model (a folder of yours is left where it is).</source>
        <translation>取消登记所选模型（您自己的文件夹保持原样）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="263"/>
        <source>The list of models cannot be read</source>
        <translation>无法读取模型列表</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="281"/>
        <source>The built-in model is a demonstration: it learns from this project&apos;s rows alone, so its answers show the flow, not real quality. For real answers choose a pretrained model in the list, such as {0}.</source>
        <translation>内置模型仅用于演示：它只从本项目的数据中学习，其回答只展示流程，不代表真实质量。要获得真正可用的回答，请在列表中选择预训练模型，例如 {0}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="285"/>
        <source>The built-in model is a demonstration: it learns from this project&apos;s rows alone, so its answers show the flow, not real quality. For real answers get a pretrained model: “Get Gemma 3 270M” installs one that also reads and writes Chinese (about 1 GB on disk), or add one you have.</source>
        <translation>内置模型仅用于演示：它只从本项目的数据中学习，其回答只展示流程，不代表真实质量。要获得真正可用的回答，请使用预训练模型：“获取 Gemma 3 270M”会安装一个能读写中文的模型（约占 1 GB 磁盘空间），您也可以添加已有的模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="304"/>
        <source>Choose a GGUF model file</source>
        <translation>选择 GGUF 模型文件</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="305"/>
        <source>GGUF model files (*.gguf);;All files (*)</source>
        <translation>GGUF 模型文件 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="311"/>
        <source>Choose a model folder (with config.json)</source>
        <translation>选择模型文件夹（包含 config.json）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="320"/>
        <source>The model could not be added</source>
        <translation>无法添加模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="322"/>
        <source>Converting {0} into a model folder…</source>
        <translation>正在把 {0} 转换为模型文件夹…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="323"/>
        <source>Checking the model folder {0}…</source>
        <translation>正在检查模型文件夹 {0}…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="324"/>
        <source>Adding a model</source>
        <translation>添加模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="336"/>
        <source>The model could not be got</source>
        <translation>无法获取模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="348"/>
        <source>Getting {0}</source>
        <translation>正在获取 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="349"/>
        <source>Installing, converting and registering {0} (a few minutes)…</source>
        <translation>正在安装、转换并登记 {0}（需要几分钟）…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="362"/>
        <source>Remove {0}? Its folder is deleted from the disk ({1}). Runs trained from it with LoRA keep only their add-on: evaluating or exporting them needs the model again.</source>
        <translation>移除 {0}？其文件夹将从磁盘删除（{1}）。用它以 LoRA 方式训练的运行只保存了附加部分：评估或导出这些运行时需要重新添加该模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="365"/>
        <source>Remove {0} from the list? Its folder {1} stays where it is.</source>
        <translation>从列表中移除 {0}？其文件夹 {1} 保持原样。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="366"/>
        <source>Remove the model</source>
        <translation>移除模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="369"/>
        <source>Removing {0}</source>
        <translation>正在移除 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/models_panel.py" line="378"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>NewProjectDialog</name>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="54"/>
        <source>New project</source>
        <translation>新建项目</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="58"/>
        <source>e.g. news-sentiment</source>
        <translation>例如 新闻情感</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="65"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="66"/>
        <source>Template</source>
        <translation>模板</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="67"/>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="67"/>
        <source>Projects folder</source>
        <translation>项目文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="95"/>
        <source>Give the project a name.</source>
        <translation>请为项目起个名字。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="97"/>
        <source>A name cannot contain any of \ / : * ? &quot; &lt; &gt; |.</source>
        <translation>名称中不能包含 \ / : * ? &quot; &lt; &gt; | 这些字符。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="99"/>
        <source>A folder of this name already exists and is not empty.</source>
        <translation>同名文件夹已存在且不是空的。</translation>
    </message>
</context>
<context>
    <name>OpProgress</name>
    <message>
        <location filename="../../workbench/gui/background.py" line="336"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/background.py" line="375"/>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
</context>
<context>
    <name>PairPanel</name>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="63"/>
        <source>The two answers are the same text: call it a tie, write a better one, or skip it.</source>
        <translation>两个回答的文字完全相同：请判为平局、写一个更好的回答，或跳过。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="70"/>
        <source>Answer {0}</source>
        <translation>回答 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="78"/>
        <source>‹ Previous</source>
        <translation>‹ 上一个</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="82"/>
        <source>Answer 1 is better (1)</source>
        <translation>回答 1 更好 (1)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="82"/>
        <source>Answer 2 is better (2)</source>
        <translation>回答 2 更好 (2)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="83"/>
        <source>Tie (=)</source>
        <translation>平局 (=)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="83"/>
        <source>Write a better answer… (E)</source>
        <translation>写一个更好的回答… (E)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="84"/>
        <source>Skip (S)</source>
        <translation>跳过 (S)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="93"/>
        <source>Both answers fall short: write the answer the model should give. Tuning prefers yours to each of them.</source>
        <translation>两个回答都不够好：写下模型应当给出的回答。调优时会让模型更倾向于您的回答，而不是其中任何一个。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="108"/>
        <source>Go through the skipped ones</source>
        <translation>处理跳过的问题</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="170"/>
        <source>{0} judged, {1} skipped</source>
        <translation>已评判 {0} 个，跳过 {1} 个</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="175"/>
        <source>Judged {0} of {1}, skipped {2}</source>
        <translation>共 {1} 个问题，已评判 {0} 个，跳过 {2} 个</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="177"/>
        <source>You went through every question and skipped {0} of {1}. Go through the skipped ones now, or later from here.</source>
        <translation>所有问题都已看过，{1} 个中跳过了 {0} 个。现在就处理跳过的问题，或稍后回到这里处理。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="180"/>
        <source>Every question is judged. Your judgements are on the Feedback tab.</source>
        <translation>所有问题都已评判。您的评判在“反馈”标签页中。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="186"/>
        <source>Question {0} of {1}</source>
        <translation>第 {0} 个问题，共 {1} 个</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="188"/>
        <source>The answer in the data: {0}</source>
        <translation>数据中的回答：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="196"/>
        <source>You chose answer 1.</source>
        <translation>您选择了回答 1。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="196"/>
        <source>You chose answer 2.</source>
        <translation>您选择了回答 2。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="197"/>
        <source>You called it a tie.</source>
        <translation>您判为平局。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="198"/>
        <source>You wrote a better answer.</source>
        <translation>您写了一个更好的回答。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/compare.py" line="199"/>
        <source>You skipped this question.</source>
        <translation>您跳过了这个问题。</translation>
    </message>
</context>
<context>
    <name>PlaygroundPanel</name>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="107"/>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="196"/>
        <source>Type a text or a question, as in your data, and press Enter</source>
        <translation>像数据中那样输入一段文本或一个问题，然后按回车</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="109"/>
        <source>Ask the model</source>
        <translation>向模型提问</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="157"/>
        <source>It was stopped after {0} of its {1} training steps.</source>
        <translation>它在计划的 {1} 个训练步中只训练了 {0} 步就被停止。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="159"/>
        <source>It trained for only {0} steps.</source>
        <translation>它只训练了 {0} 步。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="161"/>
        <source>Its loss rose from {0:.2f} to {1:.2f}.</source>
        <translation>它的损失从 {0:.2f} 升到了 {1:.2f}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="163"/>
        <source>Its loss fell only from {0:.2f} to {1:.2f}.</source>
        <translation>它的损失只从 {0:.2f} 降到 {1:.2f}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="165"/>
        <source>Its validation macro F1, {0:.2f}, is no better than picking one of its {1} labels at random.</source>
        <translation>它在验证集上的宏平均 F1 为 {0:.2f}，并不比在 {1} 个标签中随机挑一个更好。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="167"/>
        <source>This run&apos;s answers may be poor.</source>
        <translation>这次运行的回答可能很差。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="168"/>
        <source>Train longer, or resume the run, before relying on them.</source>
        <translation>请先训练更久（或继续这次运行），再依赖它的回答。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="193"/>
        <source>The model reads “{0}” and “{1}” one a line: type each on a line of its own (Enter starts the next), then press Ctrl+Enter</source>
        <translation>模型按行读取“{0}”和“{1}”：每项各写一行（按 Enter 换到下一行），写完按 Ctrl+Enter 提问</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="216"/>
        <source>Asking the model</source>
        <translation>正在询问模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="240"/>
        <source>(Answers are at most {0} tokens here: the model was trained on shorter texts, question and answer together.)</source>
        <translation>（这里的回答最多 {0} 个词元：模型训练时的文本（问题与回答合计）更短。）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/playground.py" line="249"/>
        <source>Label: {0}
Most likely: {1}</source>
        <translation>标签：{0}
可能性最高：{1}</translation>
    </message>
</context>
<context>
    <name>PlaygroundRating</name>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/ratings.py" line="54"/>
        <source>Compare two answers</source>
        <translation>比较两个回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/ratings.py" line="55"/>
        <source>Sample two answers to this question side by side and choose the better one</source>
        <translation>对这个问题采样两个回答并排显示，选出更好的一个</translation>
    </message>
</context>
<context>
    <name>PreferenceBox</name>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="57"/>
        <source>Tune on your judgements…</source>
        <translation>按您的评判调优…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="72"/>
        <source>Train a small add-on on top of run {0}&apos;s model so that it prefers the answers you preferred on the Evaluate page.</source>
        <translation>在训练 {0} 的模型之上训练一个小的附加模块，使其偏向您在“评估”页所偏好的回答。</translation>
    </message>
</context>
<context>
    <name>PreferenceDialog</name>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="39"/>
        <source>DPO (sigmoid loss)</source>
        <translation>DPO（sigmoid 损失）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="40"/>
        <source>IPO</source>
        <translation>IPO</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="41"/>
        <source>Hinge</source>
        <translation>Hinge</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="42"/>
        <source>KTO on pairs</source>
        <translation>KTO（成对）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="43"/>
        <source>SimPO (no reference model)</source>
        <translation>SimPO（无需参考模型）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="44"/>
        <source>ORPO (no reference model; also learns the chosen answers)</source>
        <translation>ORPO（无需参考模型；同时学习选中的回答）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="45"/>
        <source>Learn the chosen answers only (no contrast)</source>
        <translation>只学习选中的回答（不做对比）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="91"/>
        <source>Tune on your judgements</source>
        <translation>按您的评判调优</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="93"/>
        <source>Tune run {0} on your judgements</source>
        <translation>按您的评判调优训练 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="97"/>
        <source>Preference tuning (DPO) trains a small LoRA add-on on top of run {0}&apos;s model, so that it prefers the answers you preferred. The new run is a run like any other: its curves, stop and resume, evaluation and export.</source>
        <translation>偏好调优（DPO）在训练 {0} 的模型之上训练一个小的 LoRA 附加模块，使其偏向您所偏好的回答。新训练与其他训练一样：有曲线，可停止、继续、评估和导出。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="114"/>
        <source>How the pairs are weighed. Recommended: the sigmoid loss of the DPO paper, or the one measured best where every pair comes from answers rated good and bad; SimPO and ORPO need no reference model.</source>
        <translation>如何权衡每一对回答。推荐：DPO 论文的 sigmoid 损失；若所有回答对都来自评为好和差的回答，则用实测效果最好的那种损失。SimPO 和 ORPO 不需要参考模型。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="120"/>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="126"/>
        <source>Preference loss</source>
        <translation>偏好损失</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="127"/>
        <source>Time budget</source>
        <translation>时间预算</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="128"/>
        <source>Beta</source>
        <translation>Beta</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="129"/>
        <source>How near run {0}&apos;s model the tuned model stays: a larger beta keeps it nearer. Recommended from the number of pairs.</source>
        <translation>调优后的模型与训练 {0} 的模型保持多近：beta 越大越接近。按回答对的数量推荐。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="131"/>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="132"/>
        <source>Passes over the pairs</source>
        <translation>遍历回答对的轮数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="133"/>
        <source>Pairs per step</source>
        <translation>每步回答对数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="134"/>
        <source>Maximum length (tokens)</source>
        <translation>最大长度（词元）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="135"/>
        <source>Estimated time</source>
        <translation>预计时间</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="136"/>
        <source>Trains on</source>
        <translation>训练位置</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="140"/>
        <source>Start tuning</source>
        <translation>开始调优</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="166"/>
        <source>Recommended for your judgements: {0}</source>
        <translation>按您的评判推荐：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="174"/>
        <source>Judgements are made on the Evaluate page: rate its answers good or bad and write better ones, compare two answers side by side, or work through the review queue. At least {0} pairs about two different questions are needed; tens make a difference, hundreds a reliable one.</source>
        <translation>评判在“评估”页进行：把回答评为好或差并写出更好的回答、并排比较两个回答，或逐条处理审阅队列。至少需要关于两个不同问题的 {0} 个回答对；几十个才会有效果，几百个才可靠。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="197"/>
        <source>Your judgements make no pair of a better and a worse answer yet.</source>
        <translation>您的评判还没有构成任何“较好回答与较差回答”的回答对。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="199"/>
        <source>Your judgements make {0} pairs of a better and a worse answer: {1} from choices between two answers, {2} from rewritten answers, {3} from answers rated good and bad to the same question.</source>
        <translation>您的评判构成 {0} 个“较好回答与较差回答”的回答对：{1} 个来自两个回答之间的选择，{2} 个来自改写的回答，{3} 个来自同一问题下分别评为好和差的回答。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="204"/>
        <source>{0} are held out to measure the tuning; {1} train.</source>
        <translation>其中 {0} 个留出用于检验调优效果，{1} 个用于训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="207"/>
        <source>{0} answers rated good have no answer rated bad to the same question: they make no pair.</source>
        <translation>有 {0} 个评为好的回答在同一问题下没有评为差的回答，无法构成回答对。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="210"/>
        <source>Ties make no pair: {0}.</source>
        <translation>平局不构成回答对：{0} 个。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="232"/>
        <source>{0} to {1}</source>
        <translation>{0} 至 {1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="233"/>
        <source>server {0}, where run {1} trained</source>
        <translation>服务器 {0}（训练 {1} 所在处）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="234"/>
        <source>this computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="237"/>
        <source>All the passes over the pairs would take longer than the time budget: the run ends at the budget.</source>
        <translation>遍历全部回答对所需时间超过时间预算：训练将在预算用完时结束。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/preference.py" line="240"/>
        <source>Only {0} pairs train: expect the held-out score to move little and by chance.</source>
        <translation>只有 {0} 个回答对用于训练：留出回答对上的得分变化会很小，且带有偶然性。</translation>
    </message>
</context>
<context>
    <name>PromptEditor</name>
    <message>
        <location filename="../../workbench/gui/pages/data/prompt_editor.py" line="24"/>
        <source>What the model is told before each text. In the user text, {text}, {instruction} and {input} stand for the mapped columns, and {labels} for this project&apos;s labels.</source>
        <translation>每条数据前告诉模型的话。在用户输入中，{text}、{instruction} 和 {input} 代表映射的列，{labels} 代表本项目的标签。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/prompt_editor.py" line="29"/>
        <source>System text (Chinese, used for training)</source>
        <translation>系统提示（中文，训练时使用）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/prompt_editor.py" line="32"/>
        <source>System text (English)</source>
        <translation>系统提示（英文）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/prompt_editor.py" line="35"/>
        <source>User text</source>
        <translation>用户输入</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/prompt_editor.py" line="46"/>
        <source>Use this prompt</source>
        <translation>使用这个提示词</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/prompt_editor.py" line="48"/>
        <source>Back to the template&apos;s prompt</source>
        <translation>恢复模板的提示词</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/prompt_editor.py" line="79"/>
        <source>The model sees: {0}</source>
        <translation>模型看到的内容：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/prompt_editor.py" line="94"/>
        <source>This prompt cannot be used: {0}</source>
        <translation>这个提示词无法使用：{0}</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <location filename="../../workbench/gui/i18n.py" line="22"/>
        <source>&amp;Look in:</source>
        <translation>查找范围(&amp;L)：</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/i18n.py" line="23"/>
        <source>Files of &amp;type:</source>
        <translation>文件类型(&amp;T)：</translation>
    </message>
</context>
<context>
    <name>RatingButtons</name>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="212"/>
        <source>Good</source>
        <translation>好</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="213"/>
        <source>Bad</source>
        <translation>差</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="214"/>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="239"/>
        <source>Write a better answer…</source>
        <translation>写一个更好的回答…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="230"/>
        <source>This answer is good. Click again to take the rating back.</source>
        <translation>这个回答好。再点一次可撤回评分。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="231"/>
        <source>This answer is bad. Click again to take the rating back.</source>
        <translation>这个回答差。再点一次可撤回评分。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="232"/>
        <source>Write the answer the model should have given: tuning on your judgements prefers it to the model&apos;s.</source>
        <translation>写下模型本应给出的回答：根据您的评判调优时，会让模型更倾向于您的回答而不是它原来的回答。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="238"/>
        <source>Edit my better answer…</source>
        <translation>修改我写的更好回答…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/judging.py" line="252"/>
        <source>The answer is empty, so there is nothing to rate. Compare two sampled answers to the question instead, or train longer: a model that ends its turn at once has not learnt to answer yet.</source>
        <translation>回答是空的，没有可评价的内容。可以改为对这个问题比较两个采样的回答，或者训练更久：一开口就结束回合的模型还没有学会回答。</translation>
    </message>
</context>
<context>
    <name>ResultsPanel</name>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="28"/>
        <source>Confusion matrix: rows are the true labels, columns the predicted ones</source>
        <translation>混淆矩阵：行是真实标签，列是预测标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="36"/>
        <source>label</source>
        <translation>标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="36"/>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="56"/>
        <source>precision</source>
        <translation>精确率</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="36"/>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="56"/>
        <source>recall</source>
        <translation>召回率</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="37"/>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="57"/>
        <source>F1</source>
        <translation>F1</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="37"/>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="62"/>
        <source>rows</source>
        <translation>行数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="53"/>
        <source>Per label: precision, recall and F1 (test rows with the label in brackets)</source>
        <translation>各标签的精确率、召回率和 F1（括号内为带该标签的测试行数）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="58"/>
        <source>Most confused labels</source>
        <translation>最常混淆的标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="61"/>
        <source>true label</source>
        <translation>真实标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="61"/>
        <source>wrong label</source>
        <translation>错给的标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="61"/>
        <source>how</source>
        <translation>方式</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="73"/>
        <source>No test row was given a wrong label.</source>
        <translation>没有测试行被给错标签。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="137"/>
        <source>predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="137"/>
        <source>true</source>
        <translation>真实</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="141"/>
        <source>&lt;b&gt;{0}&lt;/b&gt; rows of the {1} split · model {2} ({3})</source>
        <translation>{1}集中的 &lt;b&gt;{0}&lt;/b&gt; 行 · 模型 {2}（{3}）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="152"/>
        <source>The answers are the word statistics&apos; alone (macro F1 {0}): on the validation split they scored best without the network, so the network did not read these rows.</source>
        <translation>回答仅来自词频统计（Macro F1 {0}）：在验证集上，不用神经网络时得分最高，因此神经网络没有读取这些行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="157"/>
        <source>Macro F1 of each part on these rows: the network alone {0}, the word statistics alone {1}; the word statistics&apos; share of the answer {2}.</source>
        <translation>各部分在这些行上的 Macro F1：仅神经网络 {0}，仅词频统计 {1}；词频统计在回答中的占比 {2}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="162"/>
        <source>Several labels per row: a label is given when its probability is {0} or more (the threshold with the best macro F1 on the validation split).</source>
        <translation>每行可有多个标签：某标签的概率不低于 {0} 时给出该标签（该阈值在验证集上取得最佳宏平均 F1）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="167"/>
        <source>The model was trained on {0} tokens, question and answer together: {1} of {2} answers were given fewer than the {3} new tokens asked for (as few as {4}), so that each question is read whole. For longer answers, train again with a larger maximum length.</source>
        <translation>模型训练时问题与回答合计 {0} 个词元：{2} 个回答中有 {1} 个少于所要求的 {3} 个新词元（最少 {4} 个），以便完整读入每个问题。如需更长的回答，请用更大的最大长度重新训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="183"/>
        <source>This run ended before the end of training, so its last checkpoint ({0}) was evaluated.</source>
        <translation>此运行在训练结束前就已结束，因此评估的是它最后的检查点（{0}）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="207"/>
        <source>Preference accuracy on {0} held-out pairs</source>
        <translation>{0} 个留出回答对上的偏好准确率</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="209"/>
        <source>(a coin toss)</source>
        <translation>（相当于抛硬币）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="210"/>
        <source>Chosen answer more likely</source>
        <translation>选中回答的似然更高</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="214"/>
        <source>this run</source>
        <translation>本训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="214"/>
        <source>run {0}</source>
        <translation>训练 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="219"/>
        <source>&lt;b&gt;Your judgements&lt;/b&gt; · tuned from run {0} ({1}, beta {2}) on {3} pairs</source>
        <translation>&lt;b&gt;您的评判&lt;/b&gt; · 基于训练 {0} 调优（{1}，beta {2}），使用 {3} 个回答对</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="223"/>
        <source>Evaluate with “Compare with the base model” to see run {0}&apos;s answers scored beside these.</source>
        <translation>勾选“与基础模型对比”后评估，即可在旁边看到训练 {0} 的回答得分。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="226"/>
        <source>A preference gained at the cost of the answers shows as a lower ROUGE-L or BLEU, or a higher loss, than run {0}&apos;s.</source>
        <translation>若偏好的提升以回答质量为代价，会表现为 ROUGE-L 或 BLEU 低于训练 {0}，或损失高于训练 {0}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="270"/>
        <source>given instead</source>
        <translation>代替真实标签给出</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/results.py" line="270"/>
        <source>given along with it</source>
        <translation>与真实标签一起多给</translation>
    </message>
</context>
<context>
    <name>ReviewPanel</name>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="24"/>
        <source>models: {0} {1:.0%}, this label {3:.0%}</source>
        <translation>模型：{0} {1:.0%}，当前标签 {3:.0%}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="27"/>
        <source>models: this label only {1:.0%}</source>
        <translation>模型：当前标签仅 {1:.0%}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="29"/>
        <source>run {0}: {1} {2:.0%}, this label {4:.0%}</source>
        <translation>训练 {0}：{1} {2:.0%}，当前标签 {4:.0%}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="31"/>
        <source>identical texts labelled {1}: {0}</source>
        <translation>相同文本标注为 {1}：{0} 条</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="33"/>
        <source>nearly identical texts labelled {1}: {0} (similarity {2:.2f})</source>
        <translation>几乎相同的文本标注为 {1}：{0} 条（相似度 {2:.2f}）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="65"/>
        <source>The rows whose label looks wrong: models fitted without each row disagree with its label, or the same text carries other labels. Your decisions are kept in the project, never in your file, and are replayed whenever the data is prepared again.</source>
        <translation>标签可能有误的行：不含该行拟合的模型与其标签不一致，或相同文本带有别的标签。您的判断保存在项目中，绝不写入您的文件，每次重新准备数据时都会重新应用。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="70"/>
        <source>Find rows to review</source>
        <translation>查找需要复核的行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="77"/>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="77"/>
        <source>label</source>
        <translation>标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="77"/>
        <source>suggested</source>
        <translation>建议标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="78"/>
        <source>doubt</source>
        <translation>存疑度</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="78"/>
        <source>why</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="78"/>
        <source>your decision</source>
        <translation>您的判断</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="91"/>
        <source>Accept the suggestion (A)</source>
        <translation>采纳建议 (A)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="95"/>
        <source>Set this label (L)</source>
        <translation>设为此标签 (L)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="96"/>
        <source>Not sure (N)</source>
        <translation>不确定 (N)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="97"/>
        <source>Exclude the row (X)</source>
        <translation>排除此行 (X)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="98"/>
        <source>Undo (U)</source>
        <translation>撤销 (U)</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="116"/>
        <source>Make the next data version</source>
        <translation>生成新的数据版本</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="150"/>
        <source>Open a project first.</source>
        <translation>请先打开一个项目。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="216"/>
        <source>excluded</source>
        <translation>已排除</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="218"/>
        <source>not sure</source>
        <translation>不确定</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="219"/>
        <source>→ {0}</source>
        <translation>→ {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="230"/>
        <source>Corrections not in the data yet: {0}. They apply to the next data version, made here or when you train again.</source>
        <translation>尚未写入数据的修正：{0} 条。它们将在此处生成新数据版本或再次训练时生效。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="232"/>
        <source>Every correction is in the current data version.</source>
        <translation>所有修正都已包含在当前数据版本中。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="242"/>
        <source>Finding rows to review</source>
        <translation>正在查找需要复核的行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="244"/>
        <source>Fitting models on the other rows…</source>
        <translation>正在用其余各行拟合模型…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="273"/>
        <source>{0} rows to review, most doubtful first ({1} rows read).</source>
        <translation>共 {0} 行待复核，最可疑的在前（已读取 {1} 行）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="275"/>
        <source>No row&apos;s label looks wrong.</source>
        <translation>没有发现标签可能有误的行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="322"/>
        <source>A new label</source>
        <translation>新标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="323"/>
        <source>The project has no label “{0}”. Add it to the project&apos;s labels? It takes part from the next data version on.</source>
        <translation>项目中没有标签“{0}”。要将它添加到项目的标签中吗？它将从下一个数据版本起生效。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="376"/>
        <source>Recording your correction</source>
        <translation>正在记录您的修正</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="396"/>
        <source>Data version {0}: {1} labels corrected, {2} rows excluded. New runs train on it.</source>
        <translation>数据版本 {0}：修正 {1} 个标签，排除 {2} 行。新的训练将使用此版本。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/review_panel.py" line="404"/>
        <source>Making the next data version</source>
        <translation>正在生成新的数据版本</translation>
    </message>
</context>
<context>
    <name>RunCurves</name>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="22"/>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="22"/>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="23"/>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="25"/>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="33"/>
        <source>step</source>
        <translation>步数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="23"/>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="24"/>
        <source>learning rate</source>
        <translation>当前学习率</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="25"/>
        <source>Rewards</source>
        <translation>奖励</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="26"/>
        <source>chosen answers</source>
        <translation>选中的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="27"/>
        <source>rejected answers</source>
        <translation>落选的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="28"/>
        <source>margin</source>
        <translation>差值</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="30"/>
        <source>The implicit reward of an answer: beta times how much more likely the tuned model makes it than the run it started from. Tuning raises the chosen answers&apos; reward above the rejected ones&apos;; the margin is the difference.</source>
        <translation>回答的隐式奖励：beta 乘以调优后的模型比起点训练更倾向于生成该回答的程度（对数概率之差）。调优会让选中回答的奖励高于落选回答；差值即两者之差。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="33"/>
        <source>Preference accuracy</source>
        <translation>偏好准确率</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="34"/>
        <source>training pairs</source>
        <translation>训练回答对</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="35"/>
        <source>held-out pairs</source>
        <translation>留出回答对</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="37"/>
        <source>The share of pairs whose chosen answer gets the higher reward; 0.5 is a coin toss. The held-out pairs were never trained on.</source>
        <translation>选中回答获得更高奖励的回答对所占比例；0.5 相当于抛硬币。留出的回答对从未参与训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="56"/>
        <source>tuning loss</source>
        <translation>调优损失</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="57"/>
        <source>tuning loss on held-out pairs</source>
        <translation>留出回答对上的调优损失</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="59"/>
        <source>training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_curves.py" line="60"/>
        <source>validation loss</source>
        <translation>验证集损失</translation>
    </message>
</context>
<context>
    <name>RunsTable</name>
    <message>
        <location filename="../../workbench/gui/pages/train/runs_list.py" line="71"/>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/runs_list.py" line="71"/>
        <source>Run</source>
        <translation>训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/runs_list.py" line="71"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/runs_list.py" line="71"/>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/runs_list.py" line="72"/>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/runs_list.py" line="72"/>
        <source>Validation loss</source>
        <translation>验证损失</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/runs_list.py" line="72"/>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/runs_list.py" line="73"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/runs_list.py" line="75"/>
        <source>The data version each run trained on: the prepared rows with the corrections made until it started</source>
        <translation>每次训练所用的数据版本：准备好的数据行，加上训练开始前所做的更正</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/runs_list.py" line="145"/>
        <source>A preference run: the model of run {0}, tuned on your judgements of its answers (DPO with LoRA).</source>
        <translation>偏好调优训练：训练 {0} 的模型，按您对其回答的评判调优（DPO 加 LoRA）。</translation>
    </message>
</context>
<context>
    <name>SampleCorrections</name>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="83"/>
        <source>There are no evaluated rows to correct.</source>
        <translation>没有可更正的已评估数据行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="92"/>
        <source>A row&apos;s label set is corrected on the Data page: right-click the row in its table.</source>
        <translation>一行的标签集合请在“数据”页更正：在表格中右键点击该行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="94"/>
        <source>This evaluation was made before rows had ids, so a correction could not find its row. Evaluate the run again, then correct its rows here.</source>
        <translation>这次评估是在数据行有编号之前做的，更正无法找到对应的行。请重新评估这次训练，然后在这里更正它的数据行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="132"/>
        <source>Your correction: {0}. The file says {1}.</source>
        <translation>你的更正：{0}。文件中为 {1}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="135"/>
        <source>{0} (excluded)</source>
        <translation>{0}（已排除）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="136"/>
        <source>You excluded this row: the next run trains and is scored without it.</source>
        <translation>你已排除这一行：下一次训练及其评估都不再使用它。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="138"/>
        <source>You marked this row as not sure: it keeps its label.</source>
        <translation>你把这一行标记为“不确定”：它保留原来的标签。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="139"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="139"/>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="147"/>
        <source>Scored against your correction {0}: {1}. The evaluation scored it against {2}: {3}, and its figures count that.</source>
        <translation>按你的更正 {0} 判定：{1}。评估时按 {2} 判定：{3}，评估的指标按此计算。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="158"/>
        <source>Corrections not in the data yet: {0}. They apply when you train again (Train page: Train again with the corrections).</source>
        <translation>尚未写入数据的更正：{0} 条。重新训练时生效（“训练”页：“用更正后的数据重新训练”）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="161"/>
        <source>Your corrections were undone; the data holds them until you train again (Train page: Train again with the corrections).</source>
        <translation>你的更正已撤销；在重新训练之前，数据中仍保留着它们（“训练”页：“用更正后的数据重新训练”）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="164"/>
        <source>A wrong label in the file? Right-click the row, or select it and press F2, to correct it or to exclude the row.</source>
        <translation>文件中的标签有错？右键点击该行，或选中后按 F2，即可更正标签或排除该行。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="185"/>
        <source>Correct the label to…</source>
        <translation>把标签更正为…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="187"/>
        <source>Exclude this row</source>
        <translation>排除这一行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="188"/>
        <source>Undo my correction</source>
        <translation>撤销我的更正</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="205"/>
        <source>{0} (the model&apos;s answer)</source>
        <translation>{0}（模型的回答）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="259"/>
        <source>The correction was not recorded</source>
        <translation>更正未能记录</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/corrections.py" line="268"/>
        <source>Recording the correction</source>
        <translation>正在记录更正</translation>
    </message>
</context>
<context>
    <name>SampleRatings</name>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/ratings.py" line="146"/>
        <source>The selected answer:</source>
        <translation>选中的回答：</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/ratings.py" line="200"/>
        <source>good</source>
        <translation>好</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/ratings.py" line="200"/>
        <source>bad</source>
        <translation>差</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/ratings.py" line="201"/>
        <source>You rated this answer good.</source>
        <translation>您把这个回答评为好。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/ratings.py" line="201"/>
        <source>You rated this answer bad.</source>
        <translation>您把这个回答评为差。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/ratings.py" line="203"/>
        <source>{0}, rewritten</source>
        <translation>{0}，已改写</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/ratings.py" line="204"/>
        <source>{0} Your answer: {1}</source>
        <translation>{0}您的回答：{1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/ratings.py" line="265"/>
        <source>Good answer</source>
        <translation>好回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/ratings.py" line="266"/>
        <source>Bad answer</source>
        <translation>差回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/ratings.py" line="267"/>
        <source>Write a better answer…</source>
        <translation>写一个更好的回答…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/evaluate/ratings.py" line="277"/>
        <source>Take back my rating</source>
        <translation>撤回我的评分</translation>
    </message>
</context>
<context>
    <name>SaveTemplateDialog</name>
    <message>
        <location filename="../../workbench/gui/pages/data/save_template_dialog.py" line="14"/>
        <source>Save as template</source>
        <translation>另存为模板</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/save_template_dialog.py" line="16"/>
        <source>The template keeps this project&apos;s labels, prompt, cleaning steps and settings, and a small sample of its cleaned data with personal data masked.</source>
        <translation>模板会保存本项目的标签、提示词、清洗步骤和设置，以及一小份已脱敏的清洗后样例数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/save_template_dialog.py" line="22"/>
        <source>e.g. hospital_triage</source>
        <translation>例如 hospital_triage</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/save_template_dialog.py" line="26"/>
        <source>Id (letters, digits, _ and -)</source>
        <translation>编号（小写字母、数字、_ 和 -）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/save_template_dialog.py" line="27"/>
        <source>Name (Chinese)</source>
        <translation>名称（中文）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/save_template_dialog.py" line="28"/>
        <source>Name (English)</source>
        <translation>名称（英文）</translation>
    </message>
</context>
<context>
    <name>ServersDialog</name>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="99"/>
        <source>Servers</source>
        <translation>服务器</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="102"/>
        <source>Runs can train on a GPU server or a cluster reached over SSH. The data, the curves and the evaluation stay here; the run folder is mirrored while it trains.</source>
        <translation>训练可以在通过 SSH 连接的 GPU 服务器或集群上进行。数据、曲线和评估留在本机；训练期间运行文件夹会同步到本机。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="107"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="107"/>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="107"/>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="108"/>
        <source>Work folder</source>
        <translation>工作文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="118"/>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="120"/>
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="122"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="124"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="165"/>
        <source>Removed {0}; its files on the server stay.</source>
        <translation>已移除 {0}；它在服务器上的文件保留。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="176"/>
        <source>Connecting to {0}…</source>
        <translation>正在连接 {0}…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="178"/>
        <source>Checking server {0}</source>
        <translation>正在检查服务器 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="197"/>
        <source>Workbench {0}, Paddle {1}, PaddleFormers {2}</source>
        <translation>Workbench {0}，Paddle {1}，PaddleFormers {2}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="199"/>
        <source>Devices: {0}; {1} CPU cores</source>
        <translation>设备：{0}；{1} 个 CPU 核心</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="202"/>
        <source>Free: {0:,} MB of disk in the work folder, {1:,} MB of memory</source>
        <translation>可用：工作文件夹所在磁盘 {0:,} MB，内存 {1:,} MB</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="205"/>
        <location filename="../../workbench/gui/pages/train/servers.py" line="206"/>
        <source>Problem: {0}</source>
        <translation>问题：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="208"/>
        <source>Ready: choose it under &quot;Train on&quot; and start.</source>
        <translation>就绪：在“训练位置”中选择它，然后开始。</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="108"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="112"/>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="117"/>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="118"/>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="122"/>
        <source>Language</source>
        <translation>界面语言</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="123"/>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="124"/>
        <source>Projects folder</source>
        <translation>项目文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="125"/>
        <source>Your organisation&apos;s templates</source>
        <translation>本单位的模板</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="125"/>
        <source>Templates folder</source>
        <translation>模板文件夹</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/dialogs.py" line="126"/>
        <source>The language changes as soon as you click OK; a new templates folder takes effect the next time Workbench starts.</source>
        <translation>点击“确定”后界面语言立即切换；新的模板文件夹在下次启动 Workbench 时生效。</translation>
    </message>
</context>
<context>
    <name>SourceBar</name>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="25"/>
        <source>Import a file…</source>
        <translation>导入文件…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="33"/>
        <source>Save and prepare the data</source>
        <translation>保存并准备数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="35"/>
        <source>Writes the cleaned, split data into the project so that training can start.</source>
        <translation>把清洗并划分好的数据写入项目，之后即可开始训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="36"/>
        <source>Save as template…</source>
        <translation>另存为模板…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="38"/>
        <source>Saves this project&apos;s labels, prompt, cleaning and settings, with a small cleaned sample, as a template your organisation can start from.</source>
        <translation>把本项目的标签、提示词、清洗步骤和设置连同一小份清洗后的样例数据保存为模板，供本单位以后直接使用。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="40"/>
        <source>First row holds the column names</source>
        <translation>第一行是列名</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="42"/>
        <source>Untick it when the file has no header line: its first row is then data, and the columns are named col1, col2, …</source>
        <translation>文件没有表头行时取消勾选：第一行将作为数据读取，各列命名为 col1、col2、…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="59"/>
        <source>No data yet: import a table of text (CSV, TSV, any text file), an Excel, JSON/JSONL or Parquet file, or drop it on the window.</source>
        <translation>还没有数据：请导入文本表格（CSV、TSV 或任意文本文件）、Excel、JSON/JSONL 或 Parquet 文件，或把文件拖到窗口上。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="97"/>
        <source>{0} · {1} rows · {2} columns · {3}</source>
        <translation>{0} · {1} 行 · {2} 列 · {3}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="102"/>
        <source>{0}
Shown from the project&apos;s copy of it, taken when the data was prepared.</source>
        <translation>{0}
显示的是准备数据时保存在项目中的副本。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="110"/>
        <source>the first row is data: the columns are named col1 … col{0}</source>
        <translation>第一行是数据：各列命名为 col1 … col{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="111"/>
        <source>JSON Lines under a .json name: read line by line</source>
        <translation>这是以 .json 命名的 JSON Lines 文件：已逐行读取</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="112"/>
        <source>one row per record of each line; column {0} names the document</source>
        <translation>每行中的每条记录为一行；{0} 列标明所属文档</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="126"/>
        <source>commas</source>
        <translation>逗号</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="126"/>
        <source>tabs</source>
        <translation>制表符</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="126"/>
        <source>semicolons</source>
        <translation>分号</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="127"/>
        <source>vertical bars</source>
        <translation>竖线</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="129"/>
        <source>read as the alpaca fine-tuning format: its fields are the columns {0}</source>
        <translation>识别为 alpaca 微调格式：各字段对应 {0} 列</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="131"/>
        <source>read as PaddleNLP&apos;s src/tgt format: its fields are the columns {0}</source>
        <translation>识别为 PaddleNLP 的 src/tgt 格式：各字段对应 {0} 列</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="133"/>
        <source>read as conversations, one row each, in the columns {0}: the last user turn is the instruction, the final assistant turn the output, earlier turns are kept in history</source>
        <translation>识别为对话数据，每段对话一行，对应 {0} 列：最后一轮用户发言作为指令，最后一轮助手回复作为输出，更早的轮次保留在 history 列中</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="136"/>
        <source>{0} conversations do not end with an answer: their output is empty</source>
        <translation>有 {0} 段对话没有以回答结尾：它们的输出为空</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="138"/>
        <source>{0} columns had no name in the header: they were named column_ and their position</source>
        <translation>表头中有 {0} 列没有名称：已按位置命名为 column_ 加序号</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="140"/>
        <source>columns of the same name were told apart: {0}</source>
        <translation>同名的列已加以区分：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="141"/>
        <source>no separator found: each line was read as one text</source>
        <translation>没有找到分隔符：每一行都作为一条文本读取</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="142"/>
        <source>columns are separated by {0}</source>
        <translation>各列以{0}分隔</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="143"/>
        <source>the encoding ({0}) was recognised beyond the first part of the file</source>
        <translation>文件的编码（{0}）是在文件开头之后才识别出来的</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="145"/>
        <source>each line ends with a separator: the empty last field was ignored</source>
        <translation>每一行都以分隔符结尾：已忽略末尾的空字段</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="147"/>
        <source>read the sheet “{0}” of {1} sheets</source>
        <translation>读取了 {1} 个工作表中的“{0}”</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="148"/>
        <source>the records are lists without field names: their fields are named col1 … col{0}</source>
        <translation>记录是没有字段名的列表：各字段已命名为 col1 … col{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="150"/>
        <source>every record was wrapped in a list of one ({0} levels); the wrapping was removed</source>
        <translation>每条记录都被包在只有一个元素的列表中（{0} 层）；已去掉这层包装</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="152"/>
        <source>the records were taken from the list under “{0}”</source>
        <translation>记录取自“{0}”下的列表</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="153"/>
        <source>fields holding bytes that are not text were kept as base64: {0}</source>
        <translation>含有非文本字节的字段已按 base64 保留：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/source_bar.py" line="155"/>
        <source>the file is gzip-compressed</source>
        <translation>文件经过 gzip 压缩</translation>
    </message>
</context>
<context>
    <name>SplitPanel</name>
    <message>
        <location filename="../../workbench/gui/pages/data/split_panel.py" line="25"/>
        <source>Training %</source>
        <translation>训练 %</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/split_panel.py" line="25"/>
        <source>Validation %</source>
        <translation>验证 %</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/split_panel.py" line="25"/>
        <source>Test %</source>
        <translation>测试 %</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/split_panel.py" line="36"/>
        <source>The same number gives the same split every time.</source>
        <translation>相同的数字每次得到相同的划分。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/split_panel.py" line="37"/>
        <source>Random seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/split_panel.py" line="42"/>
        <source>The model learns from the training rows, is checked on the validation rows while it trains, and is measured on the test rows, which it never sees. For classification every label is split in the same proportions.</source>
        <translation>模型从训练数据中学习，训练过程中用验证数据检查，最后用它从未见过的测试数据衡量效果。分类任务中每个标签都按相同比例划分。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/split_panel.py" line="77"/>
        <source>The three parts add up to {0:g}%; they must add up to 100%.</source>
        <translation>三部分合计 {0:g}%，必须等于 100%。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/split_panel.py" line="80"/>
        <source>The training part cannot be empty.</source>
        <translation>训练部分不能为空。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/split_panel.py" line="85"/>
        <source>About {0} training, {1} validation and {2} test rows.</source>
        <translation>约 {0} 行用于训练、{1} 行用于验证、{2} 行用于测试。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/split_panel.py" line="88"/>
        <source>The split is valid.</source>
        <translation>划分比例有效。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/split_panel.py" line="91"/>
        <source>The rows of one document (column {0}) stay together in one part, so the parts hold about these shares of the documents.</source>
        <translation>同一文档（{0} 列）的各行都放在同一部分中，因此上述比例大致是各部分所含文档的比例。</translation>
    </message>
</context>
<context>
    <name>StepEditor</name>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="19"/>
        <source>Column</source>
        <translation>列</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="20"/>
        <source>Unicode form</source>
        <translation>Unicode 规范形式</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="21"/>
        <source>At least (characters)</source>
        <translation>至少（字符）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="22"/>
        <source>At most (characters)</source>
        <translation>至多（字符）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="24"/>
        <source>Personal data to mask</source>
        <translation>需要脱敏的个人信息</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="25"/>
        <source>Replacement tokens (JSON)</source>
        <translation>替换标记（JSON）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="26"/>
        <source>Terms (comma separated)</source>
        <translation>词语（用逗号分隔）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="27"/>
        <source>Action</source>
        <translation>处理方式</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="28"/>
        <source>Mask character</source>
        <translation>遮盖字符</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="29"/>
        <source>Ignore upper/lower case</source>
        <translation>忽略大小写</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="30"/>
        <source>Labels (comma separated)</source>
        <translation>标签（用逗号分隔）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="31"/>
        <source>Other spellings (JSON)</source>
        <translation>其他写法（JSON）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="32"/>
        <source>Drop rows with other labels</source>
        <translation>删除标签不在标签集中的行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="33"/>
        <source>Find</source>
        <translation>查找</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="34"/>
        <source>Replace with</source>
        <translation>替换为</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="35"/>
        <source>Regular expression</source>
        <translation>正则表达式</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="38"/>
        <source>phone numbers</source>
        <translation>手机号</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="39"/>
        <source>ID card numbers</source>
        <translation>身份证号</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="40"/>
        <source>bank card numbers</source>
        <translation>银行卡号</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="41"/>
        <source>e-mail addresses</source>
        <translation>电子邮箱</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="42"/>
        <source>mask the term</source>
        <translation>遮盖该词</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="43"/>
        <source>drop the row</source>
        <translation>删除整行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="166"/>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="194"/>
        <source>(not set)</source>
        <translation>（未设置）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="226"/>
        <source>all text columns</source>
        <translation>所有文本列</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="23"/>
        <source>Count rows longer than (characters)</source>
        <translation>统计超过此长度的行（字符）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="18"/>
        <source>Columns to clean</source>
        <translation>要清洗的列</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="44"/>
        <source>only list the rows for review</source>
        <translation>只列出这些行供复核</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/widgets/step_editor.py" line="128"/>
        <source>The labels and their other spellings are edited on the Labels tab.</source>
        <translation>标签及其其他写法在“标签”页中编辑。</translation>
    </message>
</context>
<context>
    <name>StepsPanel</name>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="50"/>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="50"/>
        <source>Rows dropped</source>
        <translation>删除的行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="50"/>
        <source>Cells changed</source>
        <translation>修改的单元格</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="65"/>
        <source>Add step</source>
        <translation>添加步骤</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="81"/>
        <source>Remove the selected step</source>
        <translation>删除选中的步骤</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="85"/>
        <source>Move the step up</source>
        <translation>上移该步骤</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="89"/>
        <source>Move the step down</source>
        <translation>下移该步骤</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="105"/>
        <source>Affected rows (before → after)</source>
        <translation>受影响的行（处理前 → 处理后）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="109"/>
        <source>Row</source>
        <translation>行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="109"/>
        <source>Column</source>
        <translation>列</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="109"/>
        <source>Before</source>
        <translation>处理前</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="109"/>
        <source>After</source>
        <translation>处理后</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="187"/>
        <source>Select a step to see and change its settings.</source>
        <translation>选择一个步骤以查看和修改它的设置。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="211"/>
        <source>(row dropped)</source>
        <translation>（该行已删除）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="224"/>
        <source>Affected rows (before → after): {0} of them shown</source>
        <translation>受影响的行（处理前 → 处理后）：显示其中 {0} 行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="225"/>
        <source>Affected rows: none in this data</source>
        <translation>受影响的行：这份数据中没有</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="247"/>
        <source>add {0}</source>
        <translation>添加“{0}”</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="256"/>
        <source>remove {0}</source>
        <translation>删除“{0}”</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="265"/>
        <source>move {0}</source>
        <translation>移动“{0}”</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="273"/>
        <source>switch on {0}</source>
        <translation>开启“{0}”</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="273"/>
        <source>switch off {0}</source>
        <translation>关闭“{0}”</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/steps_panel.py" line="298"/>
        <source>change {0}</source>
        <translation>修改“{0}”</translation>
    </message>
</context>
<context>
    <name>TableCorrections</name>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="84"/>
        <source>Corrected by you; the label was {0}</source>
        <translation>已由您修正；原标签为 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="88"/>
        <source>Excluded by you: the next data version leaves this row out</source>
        <translation>已由您排除：下一个数据版本将不含此行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="90"/>
        <source>Marked not sure by you; the label is kept</source>
        <translation>您标记为不确定；标签保持不变</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="106"/>
        <source>Matching your corrections</source>
        <translation>正在匹配您的修正</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="135"/>
        <source>Set the labels…</source>
        <translation>设置标签…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="137"/>
        <source>Correct the label to</source>
        <translation>将标签改为</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="141"/>
        <source>A new label…</source>
        <translation>新标签…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="142"/>
        <source>Exclude this row</source>
        <translation>排除此行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="143"/>
        <source>Mark as not sure</source>
        <translation>标记为不确定</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="144"/>
        <source>Undo my correction</source>
        <translation>撤销我的修正</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="175"/>
        <source>A new label</source>
        <translation>新标签</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="176"/>
        <source>The label for this row, added to the project&apos;s labels from the next data version on:</source>
        <translation>此行的标签（将从下一个数据版本起加入项目的标签）：</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="199"/>
        <source>The correction was not recorded</source>
        <translation>修正未能记录</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/data/table_corrections.py" line="201"/>
        <source>Recording your correction</source>
        <translation>正在记录您的修正</translation>
    </message>
</context>
<context>
    <name>TargetCombo</name>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="34"/>
        <source>This computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/servers.py" line="40"/>
        <source>Server {0} ({1})</source>
        <translation>服务器 {0}（{1}）</translation>
    </message>
</context>
<context>
    <name>TemplateCard</name>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="61"/>
        <source>Labels: {0}</source>
        <translation>标签：{0}</translation>
    </message>
</context>
<context>
    <name>TemplatePage</name>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="20"/>
        <source>Finance</source>
        <translation>金融</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="21"/>
        <source>Medical</source>
        <translation>医疗</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="22"/>
        <source>Legal</source>
        <translation>法律</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="31"/>
        <source>Text classification</source>
        <translation>文本分类</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="32"/>
        <source>Instruction tuning (questions and answers)</source>
        <translation>指令微调（问答）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="127"/>
        <source>Choose what the model should learn. Each template brings its columns, labels, cleaning steps, recommended settings and sample data.</source>
        <translation>选择模型要学习的任务。每个模板都自带所需的列、标签、清洗步骤、推荐参数和示例数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="109"/>
        <source>A template could not be loaded: {0}</source>
        <translation>有一个模板无法加载：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="29"/>
        <source>Text classification, several labels per row</source>
        <translation>文本分类（每行可有多个标签）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="153"/>
        <source>Sample data (first rows)</source>
        <translation>示例数据（前几行）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="162"/>
        <location filename="../../workbench/gui/pages/template/page.py" line="212"/>
        <source>Use this template</source>
        <translation>使用此模板</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="203"/>
        <source>&lt;b&gt;Task:&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;任务：&lt;/b&gt;{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="204"/>
        <source>&lt;b&gt;Columns:&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;列：&lt;/b&gt;{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="205"/>
        <source>&lt;b&gt;Metrics:&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;评估指标：&lt;/b&gt;{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="208"/>
        <source>&lt;b&gt;Labels:&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;标签：&lt;/b&gt;{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="211"/>
        <source>This project uses this template</source>
        <translation>本项目正在使用此模板</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/template/page.py" line="231"/>
        <source>Reading the sample data</source>
        <translation>正在读取示例数据</translation>
    </message>
</context>
<context>
    <name>TrainPage</name>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="21"/>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="22"/>
        <source>Epochs</source>
        <translation>训练轮数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="23"/>
        <source>Rows per step (batch)</source>
        <translation>每批条数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="24"/>
        <source>Maximum length (tokens)</source>
        <translation>最大长度（词元）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="25"/>
        <source>LoRA rank</source>
        <translation>LoRA 秩</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="26"/>
        <source>LoRA scaling</source>
        <translation>LoRA 缩放系数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="27"/>
        <source>LoRA dropout</source>
        <translation>LoRA 随机丢弃比例</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="28"/>
        <source>Warm-up share</source>
        <translation>预热比例</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="29"/>
        <source>Gradient accumulation</source>
        <translation>梯度累积步数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="30"/>
        <source>Weight decay</source>
        <translation>权重衰减</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="95"/>
        <source>created</source>
        <translation>已创建</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="96"/>
        <source>running</source>
        <translation>训练中</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="97"/>
        <source>completed</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="98"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="99"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="100"/>
        <source>crashed</source>
        <translation>意外中断</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="31"/>
        <source>Base model</source>
        <translation>基础模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="45"/>
        <source>Vocabulary trained over</source>
        <translation>训练所用词表</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="46"/>
        <source>Layers recomputed (less memory)</source>
        <translation>逐层重算（省内存）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="32"/>
        <source>Method</source>
        <translation>训练方式</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="72"/>
        <source>by epochs</source>
        <translation>按轮数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="33"/>
        <source>Stop after steps</source>
        <translation>训练步数上限</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="34"/>
        <source>Check every (steps)</source>
        <translation>每隔多少步检查</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="35"/>
        <source>Save every (steps)</source>
        <translation>每隔多少步保存</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="36"/>
        <source>Log every (steps)</source>
        <translation>每隔多少步记录</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="37"/>
        <source>Checkpoints kept</source>
        <translation>保留的检查点数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="38"/>
        <source>Random seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="39"/>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="40"/>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="41"/>
        <source>Quantisation</source>
        <translation>量化</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="42"/>
        <source>Learning rate schedule</source>
        <translation>学习率调度</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="43"/>
        <source>LoRA layers</source>
        <translation>LoRA 作用的层</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="44"/>
        <source>Pickle weights allowed</source>
        <translation>允许 pickle 权重</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="47"/>
        <source>Data version</source>
        <translation>数据版本</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="48"/>
        <source>Time budget</source>
        <translation>时间预算</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="49"/>
        <source>Validation rows per check</source>
        <translation>每次检查的验证行数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="50"/>
        <source>Classification head</source>
        <translation>分类头</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="51"/>
        <source>Classification head reads</source>
        <translation>分类头读取</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="52"/>
        <source>Share of the model&apos;s layers read</source>
        <translation>读取的模型层比例</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="53"/>
        <source>Head fitted on frozen states first</source>
        <translation>先在冻结的隐藏状态上拟合分类头</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="54"/>
        <source>Word statistics mixed into the head</source>
        <translation>分类头混合词频统计部分</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="55"/>
        <source>Tuned from run</source>
        <translation>调优起点训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="56"/>
        <source>Preference loss</source>
        <translation>偏好损失</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="57"/>
        <source>Beta</source>
        <translation>Beta</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="65"/>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="66"/>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="68"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="68"/>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="74"/>
        <source>built-in tiny model</source>
        <translation>内置微型模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="75"/>
        <source>built-in small model</source>
        <translation>内置小型模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="79"/>
        <source>the last token</source>
        <translation>最后一个词元</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="80"/>
        <source>the mean of the tokens</source>
        <translation>所有词元的平均</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="86"/>
        <source>full fine-tuning</source>
        <translation>全量微调</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/run_text.py" line="87"/>
        <source>DPO preference tuning</source>
        <translation>DPO 偏好调优</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="87"/>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="90"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="92"/>
        <source>Resume</source>
        <translation>恢复训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="117"/>
        <location filename="../../workbench/gui/pages/train/page.py" line="440"/>
        <source>No run yet: choose the settings and click Start.</source>
        <translation>还没有训练：选好参数后点击“开始”。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="156"/>
        <source>Runs</source>
        <translation>训练记录</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="157"/>
        <source>Compare runs</source>
        <translation>对比训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="158"/>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="219"/>
        <source>The data is not prepared</source>
        <translation>数据尚未准备好</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="220"/>
        <source>Prepare the data on the Data page first (Save and prepare the data).</source>
        <translation>请先在“数据”页准备好数据（点击“保存并准备数据”）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="225"/>
        <location filename="../../workbench/gui/pages/train/page.py" line="240"/>
        <location filename="../../workbench/gui/pages/train/page.py" line="276"/>
        <location filename="../../workbench/gui/pages/train/page.py" line="321"/>
        <source>Training could not start</source>
        <translation>无法开始训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="280"/>
        <source>Starting the run on server {0}</source>
        <translation>正在服务器 {0} 上启动训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="339"/>
        <source>The corrections could not be written</source>
        <translation>无法写入更正</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="343"/>
        <source>Writing the corrected data</source>
        <translation>正在写入更正后的数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="353"/>
        <source>Asked {0} to save a checkpoint and stop.</source>
        <translation>已请求 {0} 保存检查点后停止。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="370"/>
        <location filename="../../workbench/gui/pages/train/page.py" line="374"/>
        <source>Training could not resume</source>
        <translation>无法恢复训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="378"/>
        <source>Resuming {0} from {1}.</source>
        <translation>从 {1} 恢复训练 {0}。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="455"/>
        <source>Run {0} · {1}</source>
        <translation>训练 {0} · {1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="498"/>
        <source>{0} to {1}</source>
        <translation>{0} 至 {1}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="500"/>
        <source> · the whole run: {0}, measured from its first {1} steps</source>
        <translation> · 整个训练：{0}，按前 {1} 步实测推算</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="501"/>
        <source> · the whole run: {0}, estimated before it started</source>
        <translation> · 整个训练：{0}，开始前的估计</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="536"/>
        <source>step {0}: tuning loss on the held-out pairs {1:.4f} {2}</source>
        <translation>第 {0} 步：留出回答对上的调优损失 {1:.4f} {2}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="537"/>
        <source>step {0}: validation loss {1:.4f} {2}</source>
        <translation>第 {0} 步：验证损失 {1:.4f} {2}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="544"/>
        <source>the built-in model (trained from scratch on this data)</source>
        <translation>内置模型（在这份数据上从零训练）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="546"/>
        <source>Training {0} on {1}: {2:,} of {3:,} parameters trainable, {4} steps.</source>
        <translation>在 {1} 上训练{0}：{3:,} 个参数中有 {2:,} 个参与训练，共 {4} 步。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="549"/>
        <source>Tuning the model of run {0} on {1}: {2:,} of {3:,} parameters trainable, {4} steps.</source>
        <translation>在 {1} 上调优训练 {0} 的模型：{3:,} 个参数中有 {2:,} 个参与训练，共 {4} 步。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="553"/>
        <source>Saved checkpoint {0}</source>
        <translation>已保存检查点 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="563"/>
        <source>Run ended: {0}</source>
        <translation>训练结束：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="16"/>
        <source>Preparing the base model</source>
        <translation>正在准备基础模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="18"/>
        <source>Fitted the word-statistics part on {0:,} rows ({1:,} character n-grams) in {2:.1f} s</source>
        <translation>已用 {0:,} 行（{1:,} 个字符 n 元组）拟合词频统计部分，用时 {2:.1f} 秒</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="22"/>
        <source>Reading the rows with the frozen model: {0:,} of {1:,}</source>
        <translation>用冻结的模型读取各行：{0:,} / {1:,}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="25"/>
        <source>The time budget&apos;s first stage read {0:,} of the {1:,} training rows: the head is fitted on them, the word statistics on all of them</source>
        <translation>时间预算内的第一阶段读取了 {1:,} 条训练数据中的 {0:,} 条：分类头在这些数据上拟合，词统计部分在全部数据上拟合</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="29"/>
        <source>Read the frozen model&apos;s states of {0:,} rows from the project&apos;s cache</source>
        <translation>已从项目缓存读取冻结模型对 {0:,} 行的隐藏状态</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="32"/>
        <source>Fitted the classification head on the frozen model&apos;s states of {0:,} rows in {1:.0f} s; validation Macro F1 {2:.4f}</source>
        <translation>已在冻结模型对 {0:,} 行的隐藏状态上拟合分类头，用时 {1:.0f} 秒；验证集 Macro F1 {2:.4f}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="38"/>
        <source>Validation Macro F1 after LoRA {0:.4f}, from the frozen start {1:.4f}: the LoRA model is kept</source>
        <translation>LoRA 训练后验证集 Macro F1 为 {0:.4f}，冻结起步时为 {1:.4f}：保留 LoRA 模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="41"/>
        <source>Validation Macro F1 after LoRA {0:.4f}, no better than the frozen start&apos;s {1:.4f}: the frozen start is kept</source>
        <translation>LoRA 训练后验证集 Macro F1 为 {0:.4f}，不优于冻结起步时的 {1:.4f}：保留冻结起步的模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="45"/>
        <source>The first stage left {0:.0f} s of the time budget, under the {1:.0f} s that LoRA&apos;s steps and the comparison after them take: the frozen start is the run&apos;s model</source>
        <translation>第一阶段后时间预算只剩 {0:.0f} 秒，不足 LoRA 的训练步及其后的比较所需的 {1:.0f} 秒：本次运行保留冻结起步的模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="50"/>
        <source>Stopped early at step {0}: validation {1} has not improved on {2:.4f} (step {3}) for {4} evaluations</source>
        <translation>在第 {0} 步提前停止：验证集{1} 已连续 {4} 次评估未超过 {2:.4f}（第 {3} 步）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="55"/>
        <source>Kept the best weights: step {0}, validation {1} {2:.4f}</source>
        <translation>保留最佳权重：第 {0} 步，验证集{1} {2:.4f}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="58"/>
        <source>Validation Macro F1 {0:.4f} (network alone {1:.4f}, word-statistics part alone {2:.4f}, its share {3:g})</source>
        <translation>验证集宏平均 F1 {0:.4f}（仅神经网络 {1:.4f}，仅词频统计部分 {2:.4f}，其占比 {3:g}）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="63"/>
        <source>Saved the trained model</source>
        <translation>已保存训练好的模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="65"/>
        <source>The time budget of {0} is used up: training ends at step {1} of {2}</source>
        <translation>时间预算 {0} 已用完：训练在第 {1} 步（共 {2} 步）结束</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="69"/>
        <source>Compute threads {0} → {1}: other work used {2:.0%} of the processor over the last minutes</source>
        <translation>计算线程 {0} → {1}：最近几分钟其他任务占用了处理器的 {2:.0%}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="73"/>
        <source>The simple baseline was still being fitted when the time budget ran out; the evaluation fits it</source>
        <translation>时间预算用完时简单基线仍在拟合；评估时会再拟合它</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="78"/>
        <source>Before tuning, on {0} held-out pairs: the model&apos;s likelihood prefers the chosen answer in {1:.0%}</source>
        <translation>调优前，在 {0} 个留出回答对上：模型的似然在 {1:.0%} 的回答对中偏向选中的回答</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/run_log.py" line="82"/>
        <source>After tuning, on {0} held-out pairs: the implicit reward prefers the chosen answer in {1:.0%} (0.5 is a coin toss); the model&apos;s likelihood in {2:.0%}</source>
        <translation>调优后，在 {0} 个留出回答对上：隐式奖励在 {1:.0%} 的回答对中偏向选中的回答（0.5 相当于抛硬币）；模型的似然为 {2:.0%}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="480"/>
        <source>step {0} of {1} · {2:.0f} tokens/s · about {3} left</source>
        <translation>第 {0} / {1} 步 · 每秒 {2:.0f} 个词元 · 约剩 {3}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="371"/>
        <source>Run {0} is already running (process {1} is training it).</source>
        <translation>运行 {0} 已在进行中（进程 {1} 正在训练它）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="453"/>
        <source>stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="459"/>
        <source>The worker process ended without reporting why.</source>
        <translation>训练进程意外结束，没有报告原因。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="460"/>
        <source>This run {0}: {1}
Its log: {2}</source>
        <translation>此运行{0}：{1}
日志：{2}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="484"/>
        <source>step {0} of {1}</source>
        <translation>第 {0} 步，共 {1} 步</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/page.py" line="519"/>
        <source>The worker process ended without reporting. Resume continues from the last checkpoint; its log says what happened: {0}</source>
        <translation>训练进程意外结束，没有报告。继续训练会从最后一个检查点开始；日志中记录了发生的情况：{0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/delete_run.py" line="24"/>
        <source>Delete this run…</source>
        <translation>删除这次训练…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/delete_run.py" line="28"/>
        <source>Stop the run first.</source>
        <translation>请先停止这次训练。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/delete_run.py" line="40"/>
        <source>Delete run {0}? Its checkpoints and trained weights are removed from the disk; bundles exported from it stay. This cannot be undone.</source>
        <translation>删除训练 {0}？它的检查点和训练好的权重将从磁盘上删除；由它导出的部署包会保留。此操作无法撤销。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/delete_run.py" line="43"/>
        <source>Delete the run</source>
        <translation>删除训练</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/delete_run.py" line="51"/>
        <source>Run {0} deleted: {1} MB freed.</source>
        <translation>已删除训练 {0}：释放了 {1} MB。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/delete_run.py" line="54"/>
        <source>Deleting {0}</source>
        <translation>正在删除 {0}</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/data_version.py" line="30"/>
        <source>corrected labels: {0}, excluded rows: {1}</source>
        <translation>更正的标签：{0} 个，排除的行：{1} 行</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/data_version.py" line="37"/>
        <source>This run was started before data versions: it trained on the data as prepared then.</source>
        <translation>这次训练开始于数据版本出现之前：它使用的是当时准备好的数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/data_version.py" line="41"/>
        <source>Data version {0}; its folder is missing.</source>
        <translation>数据版本 {0}；它的文件夹不见了。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/data_version.py" line="43"/>
        <source>Data version {0} ({1})</source>
        <translation>数据版本 {0}（{1}）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/data_version.py" line="45"/>
        <source>Data version {0}, as prepared</source>
        <translation>数据版本 {0}，即准备好时的数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/data_version.py" line="47"/>
        <source>New runs train on this version.</source>
        <translation>新的训练使用这个版本。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/data_version.py" line="64"/>
        <source>Runs {0} and {1} were scored on test labels that differ in one row; their test figures are not like for like.</source>
        <translation>训练 {0} 和 {1} 评估时所用的测试标签有 1 行不同；它们的测试指标不能直接比较。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/data_version.py" line="68"/>
        <source>Runs {0} and {1} were scored on test labels that differ in {2} rows; their test figures are not like for like.</source>
        <translation>训练 {0} 和 {1} 评估时所用的测试标签有 {2} 行不同；它们的测试指标不能直接比较。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/runs_list.py" line="58"/>
        <source>{0} + your judgements</source>
        <translation>{0} + 您的评判</translation>
    </message>
</context>
<context>
    <name>TrainSettingsPanel</name>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="85"/>
        <source>Base model</source>
        <translation>基础模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="88"/>
        <source>Built-in tiny model (trains in a minute)</source>
        <translation>内置微型模型（约一分钟训练完）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="89"/>
        <source>Built-in small model (trains in minutes)</source>
        <translation>内置小模型（几分钟训练完）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="90"/>
        <source>A model folder on this computer…</source>
        <translation>本机上的模型文件夹…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="91"/>
        <source>A model id (downloaded)</source>
        <translation>模型 ID（需联网下载）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="92"/>
        <source>The built-in models are trained from scratch on your data so that everything works offline on any computer; they show the flow, not production quality. For real use pick a downloaded ERNIE, Qwen or Llama folder.</source>
        <translation>内置模型会在您的数据上从零开始训练，因此在任何电脑上都能离线跑通全流程；它们用于演示流程，达不到生产质量。实际使用请选择已下载的 ERNIE、Qwen 或 Llama 模型文件夹。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="97"/>
        <source>folder or model id</source>
        <translation>文件夹或模型 ID</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="99"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="105"/>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="448"/>
        <source>LoRA (small add-on, fast)</source>
        <translation>LoRA（附加小模块，速度快）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="106"/>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="449"/>
        <source>Full fine-tuning (all weights)</source>
        <translation>全量微调（训练全部权重）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="107"/>
        <source>LoRA trains a small add-on and keeps the base model unchanged: faster and needs less memory. Full fine-tuning changes every weight.</source>
        <translation>LoRA 只训练一个附加的小模块，基础模型保持不变：更快、更省内存。全量微调会修改全部权重。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="110"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="118"/>
        <source>Method</source>
        <translation>训练方式</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="120"/>
        <source>Start from the frozen model, with word statistics</source>
        <translation>从冻结的模型起步，并混合词频统计</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="122"/>
        <source>First fit the classification head on what the pretrained model reads in each row, without training it (one pass over the rows), mixed with word statistics of the text; LoRA then starts from that head with the time left. Reads half of the model&apos;s layers, which also makes every step and answer faster.</source>
        <translation>先在预训练模型对每行的读取结果上拟合分类头（不训练模型本身，只读取各行一遍），并混合文本的词频统计；随后 LoRA 用剩余时间从这个分类头继续训练。只读取模型的前一半层，因此每一步训练和每次回答也更快。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="135"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="141"/>
        <source>Preset</source>
        <translation>预设方案</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="149"/>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="150"/>
        <source>How long training may take: the recommended settings fit this time on this computer, for every model (a pretrained one may read only part of the data).</source>
        <translation>训练最多可用的时间：推荐设置会让每种模型的训练都在这台电脑上于此时间内完成（预训练模型可能只读取部分数据）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="157"/>
        <source>Time budget</source>
        <translation>时间预算</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="167"/>
        <source>by epochs</source>
        <translation>按轮数</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="169"/>
        <source>Stop after this many steps instead of after the epochs; 0 trains for the epochs.</source>
        <translation>训练到这么多步就停止，不按轮数；0 表示按训练轮数。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="173"/>
        <source>How often (in steps) the model is checked on the validation rows and saved.</source>
        <translation>每隔多少步在验证数据上检查一次模型并保存。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="174"/>
        <source>Stop after steps</source>
        <translation>训练步数上限</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="175"/>
        <source>Check and save every</source>
        <translation>每隔多少步检查并保存</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="202"/>
        <source>Servers…</source>
        <translation>服务器…</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="204"/>
        <source>Train on</source>
        <translation>训练位置</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="216"/>
        <source>Recommended for this data</source>
        <translation>针对这份数据的推荐值</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="230"/>
        <source>Your own settings</source>
        <translation>自定义设置</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="386"/>
        <source>Choose a model folder (with config.json)</source>
        <translation>选择模型文件夹（包含 config.json）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="436"/>
        <source>LoRA + classification head</source>
        <translation>LoRA + 分类头</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="437"/>
        <source>Full fine-tuning + classification head</source>
        <translation>全量微调 + 分类头</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="445"/>
        <source>LoRA + classification head (small add-on, fast)</source>
        <translation>LoRA + 分类头（附加小模块，速度快）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="446"/>
        <source>Full fine-tuning + classification head (all weights)</source>
        <translation>全量微调 + 分类头（训练全部权重）</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="454"/>
        <source>The built-in model is built from this project&apos;s data and starts untrained, so all of it is trained here (LoRA adapts a model that has already learned; it does not apply here).</source>
        <translation>内置模型由本项目的数据构建，从未训练的状态开始，所以全部在这里训练（LoRA 用于调整已经学过的模型，这里不适用）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="457"/>
        <source>Every weight of the model is trained, so there are no LoRA settings.</source>
        <translation>训练模型的全部权重，因此没有 LoRA 设置。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="581"/>
        <source>It trains on server {0}: the settings and times above are recommended and estimated for its devices ({1}); its curves show its real pace once it runs.</source>
        <translation>在服务器 {0} 上训练：以上设置和时间是按它的设备（{1}）推荐和估算的；开始训练后，曲线会显示实际速度。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="55"/>
        <source>{0} with {1} is unlikely to pay off on this data: on four public Chinese sets it beat the {2} only on question pairs, and this run takes about {3} min against about {4} min for the {2}.</source>
        <translation>{0}（{1}）用在这份数据上多半不划算：在四个公开中文数据集上，它只在问句对上胜过{2}，而本次训练约需 {3} 分钟，{2}约需 {4} 分钟。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="46"/>
        <source>Built-in small model</source>
        <translation>内置小模型</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="585"/>
        <source>The processor is {0}% busy with other work: the times above count on about {1:.1f} times as long as on an idle processor.</source>
        <translation>处理器有 {0}% 正忙于其他工作：上面的时间按空闲处理器的约 {1:.1f} 倍计算。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="589"/>
        <source>About {0} and {1:.0f} MB of memory (an estimate from the data size and the model, not a promise).</source>
        <translation>大约需要 {0}、{1:.0f} MB 内存（根据数据量和模型估算，仅供参考）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="591"/>
        <source>About {0} and {1:.0f} MB of memory on this computer&apos;s processor (an estimate from the data size and the model, not a promise).</source>
        <translation>在本机处理器上大约需要 {0}、{1:.0f} MB 内存（根据数据量和模型估算，仅供参考）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="595"/>
        <source>About {0} of the {1} steps planned: on this busy processor the time budget, {2}, ends the run there; {3:.0f} MB of memory (an estimate from the data size and the model, not a promise).</source>
        <translation>约为计划的 {1} 步中的 {0} 步：处理器正忙，时间预算 {2} 会在此结束训练；内存约 {3:.0f} MB（根据数据量和模型估算，仅供参考）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="599"/>
        <source>About {0} steps, {1} to {2} and {3:.0f} MB of memory (an estimate from the data size and the model, not a promise).</source>
        <translation>约 {0} 步，大约需要 {1} 到 {2}、{3:.0f} MB 内存（根据数据量和模型估算，仅供参考）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="603"/>
        <source>About {0} steps, {1} to {2} and {3:.0f} MB of memory on this computer&apos;s processor (an estimate from the data size and the model, not a promise).</source>
        <translation>约 {0} 步，在本机处理器上大约需要 {1} 到 {2}、{3:.0f} MB 内存（根据数据量和模型估算，仅供参考）。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="607"/>
        <source>These steps read about {0:.0%} of the training rows; a larger time budget or a GPU trains on all of them.</source>
        <translation>这些步数只读到约 {0:.0%} 的训练数据；更长的时间预算或 GPU 能用上全部数据。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="30"/>
        <source>Rows per step lowered to {0} so that training fits in this computer&apos;s {1} GB of memory.</source>
        <translation>每批条数已降为 {0}，使训练能放进这台电脑 {1} GB 的内存。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="37"/>
        <source>Layers are recomputed in the backward pass, {0} rows a step, so that training fits in this computer&apos;s {1} GB of memory; each step takes about {2}x as long.</source>
        <translation>反向传播时逐层重算激活值，每步 {0} 行，使训练放得进这台电脑的 {1} GB 内存；每步耗时约为原来的 {2} 倍。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="48"/>
        <source>{0} with {1}, from the frozen model, beat the {2} on four of eight public Chinese sets with a 10-minute budget (news headlines, question pairs, stock-forum posts) and matched it on the other four; this run takes about {3} min against about {4} min for the {2}.</source>
        <translation>{0}（{1}，从冻结的模型起步）在八个公开中文数据集上以 10 分钟预算训练，在新闻标题、问句对和股吧帖子上胜过{2}，在另外四个上与之持平；本次训练约需 {3} 分钟，{2}约需 {4} 分钟。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="61"/>
        <source>This would take hours on the processor: a GPU, a smaller model or fewer epochs help.</source>
        <translation>在处理器上这需要几个小时：使用 GPU、更小的模型或更少的轮数会更快。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="71"/>
        <source>LoRA</source>
        <translation>LoRA</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="85"/>
        <source>{0}, about all of the time budget, so the run keeps the head it fits; {1} from it needs a larger budget.</source>
        <translation>{0}，几乎用完全部时间预算，因此运行保留这一步拟合的分类头；要在其上继续 {1}，需要更大的时间预算。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="70"/>
        <source>Full fine-tuning</source>
        <translation>全量微调</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="73"/>
        <source>In two stages: the head is first fitted on the model&apos;s states of the {0} training and validation rows, about {1} min of reading them</source>
        <translation>分两个阶段：先在模型对 {0} 条训练和验证数据的内部状态上拟合分类头，读取这些数据约需 {1} 分钟</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="79"/>
        <source>In two stages: the head is first fitted on the model&apos;s states of about {0} of the {1} training and validation rows, as many as about {2} min of reading reach</source>
        <translation>分两个阶段：先在模型对约 {0} 条数据（共 {1} 条训练和验证数据）的内部状态上拟合分类头，即约 {2} 分钟内能读取的数量</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="90"/>
        <source>under 1% of the training rows</source>
        <translation>不到 1% 的训练数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="92"/>
        <source>about {0}% of the training rows</source>
        <translation>约 {0}% 的训练数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="95"/>
        <source>{0} passes over them</source>
        <translation>{0} 遍训练数据</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_notes.py" line="97"/>
        <source>{0}; {1} then trains from it within the {2} min left, about {3} steps over {4}, and is kept only if it scores better on validation.</source>
        <translation>{0}；然后 {1} 在此基础上、在剩余的 {2} 分钟内训练约 {3} 步，读取{4}，只有在验证集上得分更高时才保留。</translation>
    </message>
    <message>
        <location filename="../../workbench/gui/pages/train/settings_panel.py" line="631"/>
        <source>Choose a base model: a model folder on this computer or a model id.</source>
        <translation>请选择基础模型：本机上的模型文件夹或模型 ID。</translation>
    </message>
</context>
</TS>
